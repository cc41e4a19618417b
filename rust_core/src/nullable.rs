//! Schema pieces the API's own types use in their `#[schemars(...)]` attributes (the games', the
//! claims'); `schemas` gathers every type's schema into the contract's.

use std::borrow::Cow;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};

/// A value that is always present and may be `null`: the schema of `Option<T>`, but required
/// (schemars leaves `Option` fields out of `required` when reading, where serde fills in `None`).
/// For `#[schemars(with = "Nullable<T>")]` on fields the contract requires even when null.
pub struct Nullable<T>(PhantomData<T>);

impl<T: JsonSchema> JsonSchema for Nullable<T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Nullable_{}", T::schema_name()).into()
    }

    fn schema_id() -> Cow<'static, str> {
        format!("referee_core::nullable::Nullable<{}>", T::schema_id()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        <Option<T>>::json_schema(generator)
    }
}
