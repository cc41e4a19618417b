//! JSON Schemas of everything that crosses the API, derived from the serde types themselves
//! (`schemars`), so that the HTTP contract can be generated from the code instead of written twice.
//!
//! [`all`] answers `{"iago": {"State": {...}, "Setup": {...}, "Effects": {...}, ...}, ...,
//! "common": {"Outcome": {...}, "ChanceState": {...}, "ClaimedResult": {...}, ...}}`. A schema listed as `Name` under a game is
//! the OpenAPI component `<Prefix>Name` (`IagoState`, `CaesarBorder`; the prefix is the game's title
//! without punctuation, and empty for `common`), and every `$ref` points at
//! `#/components/schemas/<Prefix>Name`, so the definitions drop straight into `components.schemas`.
//!
//! Shapes are kept to what OpenAPI client generators read well: string enums are plain `enum`s (never
//! a `oneOf` of `const`s), nested objects have names of their own, and `null` appears only where the
//! API really writes or accepts `null` (a property it may leave out is simply not required).

use schemars::generate::{Contract, SchemaGenerator, SchemaSettings};
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

use crate::canonical::SEAL_FIELD;
use crate::chance::ChanceState;
use crate::claims::{ClaimedResult, Termination};
use crate::game::{Outcome, Rules};
use crate::info::{Described, Info};
use crate::registry::GAMES;
use crate::seal::SEAL_PATTERN;
use crate::with_game;

/// Where the definitions live in the document they are dropped into.
pub const DEFINITIONS_PATH: &str = "#/components/schemas";
/// The key of the schemas shared by every game (their names carry no prefix).
pub const COMMON: &str = "common";
/// Shared schemas, by name.
const COMMON_NAMES: [&str; 10] = [
    "Outcome",
    "OutcomeStatus",
    "ChanceState",
    "ClaimedResult",
    "Termination",
    "GameInfo",
    "GameVariant",
    "GameOption",
    "Suggestion",
    "SuggestionCandidate",
];

/// Each game's key in [`all`] and the prefix of its schema names (its name, capitalised), in the
/// order of the list of games.
pub fn games() -> Vec<(&'static str, String)> {
    let capitalised = |name: &str| name[..1].to_uppercase() + &name[1..];
    GAMES
        .iter()
        .map(|(name, _)| (*name, capitalised(name)))
        .collect()
}

fn settings(contract: Contract) -> SchemaSettings {
    let mut settings = SchemaSettings::draft2020_12();
    settings.definitions_path = DEFINITIONS_PATH.into();
    settings.contract = contract;
    settings.meta_schema = None;
    settings
}

/// The definitions of the types `add` asks for, read (`Contract::Deserialize`: what the engine
/// accepts) or written (`Contract::Serialize`: what it answers).
fn definitions(contract: Contract, add: impl FnOnce(&mut SchemaGenerator)) -> Map<String, Value> {
    let mut generator = settings(contract).into_generator();
    add(&mut generator);
    generator.take_definitions(true)
}

/// Puts `more` into `into`; a name defined twice must be defined the same way.
fn merge(into: &mut Map<String, Value>, more: Map<String, Value>) {
    for (name, schema) in more {
        match into.get(&name) {
            Some(existing) => assert_eq!(
                existing, &schema,
                "{name} is defined differently for reading and for writing"
            ),
            None => {
                into.insert(name, schema);
            }
        }
    }
}

/// One game's schemas under their full names: `State` and `Setup` as the engine reads them (the
/// state with its optional `seal`), `Effects` as it writes them.
fn game_definitions<G: Rules>() -> Map<String, Value> {
    let mut all = definitions(Contract::Deserialize, |generator| {
        generator.subschema_for::<G::State>();
        generator.subschema_for::<G::Setup>();
    });
    let state = all
        .get_mut(G::State::schema_name().as_ref())
        .and_then(|state| state["properties"].as_object_mut())
        .expect("a state is an object with properties");
    state.insert(SEAL_FIELD.into(), seal_schema());
    merge(
        &mut all,
        definitions(Contract::Serialize, |generator| {
            generator.subschema_for::<G::Effects>();
        }),
    );
    all
}

/// The `seal` of a state (see `seal`).
fn seal_schema() -> Value {
    json!({
        "type": "string",
        "pattern": SEAL_PATTERN,
        "description": "Present when the service has seal keys (`REFEREE_SEAL_KEYS`): `<key id>.<MAC>`, \
            HMAC-SHA-256 over the state without its seal in canonical JSON (compact, keys sorted), \
            after `referee-seal/1`, a newline, the game's name and a newline. Such a service answers \
            every state sealed and takes back only a state with a seal that matches it exactly \
            (`invalid-seal` otherwise); without keys a `seal` is ignored. Send the state back as \
            received: any field changed, added or removed breaks the seal.",
    })
}

fn common_definitions() -> Map<String, Value> {
    let mut all = definitions(Contract::Serialize, |generator| {
        generator.subschema_for::<Outcome>();
        generator.subschema_for::<Info>();
        generator.subschema_for::<crate::search::Suggestion>();
    });
    let decided_by = &mut all["Outcome"]["properties"]["decided_by"]["description"];
    *decided_by = format!(
        "{} {}",
        decided_by.as_str().unwrap_or(""),
        each_decided_by()
    )
    .into();
    merge(
        &mut all,
        definitions(Contract::Deserialize, |generator| {
            generator.subschema_for::<ChanceState>();
            generator.subschema_for::<ClaimedResult>();
            generator.subschema_for::<Termination>();
        }),
    );
    all
}

/// What decides each game, as its `DecidedBy` names and glosses them: "Iago: `score` (the higher
/// score), ... Isaac: ...".
fn each_decided_by() -> String {
    let of_game = |(title, glossary): (&str, &[(&str, &str)])| {
        let codes: Vec<String> = glossary
            .iter()
            .map(|(code, meaning)| format!("`{code}` ({})", gloss(meaning)))
            .collect();
        format!("{title}: {}.", codes.join(", "))
    };
    let games: Vec<String> = GAMES
        .iter()
        .map(|(_, kind)| with_game!(*kind, G => of_game((G::info().title, G::DECIDED_BY))))
        .collect();
    games.join(" ")
}

/// A variant's documentation as a gloss within a sentence: trimmed, lower-cased first, no full stop.
fn gloss(meaning: &str) -> String {
    let meaning = meaning.trim().trim_end_matches('.');
    let mut letters = meaning.chars();
    letters.next().map_or_else(String::new, |first| {
        first.to_lowercase().chain(letters).collect()
    })
}

/// Every schema of the API, by game (see the module's documentation for the shape and names).
pub fn all() -> Value {
    let mut full: Map<String, Value> = Map::new();
    for (_, kind) in GAMES {
        merge(&mut full, with_game!(kind, G => game_definitions::<G>()));
    }
    merge(&mut full, common_definitions());

    let games = games();
    let mut grouped: Map<String, Value> = games
        .iter()
        .map(|(game, _)| (game.to_string(), json!({})))
        .collect();
    grouped.insert(COMMON.into(), json!({}));
    for (name, mut schema) in full {
        plain_enums(&mut schema);
        unwrap_descriptions(&mut schema);
        let (group, short) = if COMMON_NAMES.contains(&name.as_str()) {
            (COMMON, name.clone())
        } else {
            let (game, prefix) = games
                .iter()
                .find(|(_, prefix)| name.starts_with(prefix) && name.len() > prefix.len())
                .unwrap_or_else(|| panic!("schema {name} belongs to no game: prefix its name"));
            (*game, name[prefix.len()..].to_owned())
        };
        grouped[group]
            .as_object_mut()
            .expect("an object")
            .insert(short, schema);
    }
    Value::Object(grouped)
}

/// The component name of `short` in `group` (`("caesar", "Border")` is `CaesarBorder`).
pub fn component_name(group: &str, short: &str) -> Option<String> {
    if group == COMMON {
        return Some(short.to_owned());
    }
    games()
        .iter()
        .find(|(game, _)| *game == group)
        .map(|(_, prefix)| format!("{prefix}{short}"))
}

/// Joins the lines of every description that doc comments wrapped (a blank line stays a break).
fn unwrap_descriptions(value: &mut Value) {
    match value {
        Value::Object(object) => {
            if let Some(Value::String(text)) = object.get_mut("description") {
                *text = text
                    .split("\n\n")
                    .map(|paragraph| {
                        paragraph
                            .split('\n')
                            .map(str::trim)
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .collect::<Vec<_>>()
                    .join("\n\n");
            }
            object.values_mut().for_each(unwrap_descriptions);
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_descriptions),
        _ => {}
    }
}

/// Rewrites every `oneOf`/`anyOf` whose members are all string `const`s or string `enum`s (what
/// schemars makes of a unit enum some of whose variants have documentation) as one plain string
/// `enum`, the variants' descriptions joined into the description. Generators read a plain `enum`
/// as an enum type, and a `oneOf` of `const`s as something else.
fn plain_enums(value: &mut Value) {
    match value {
        Value::Object(object) => {
            for keyword in ["oneOf", "anyOf"] {
                let Some(Value::Array(members)) = object.get(keyword) else {
                    continue;
                };
                let mut values = Vec::new();
                let mut notes = Vec::new();
                if !members
                    .iter()
                    .all(|member| string_choices(member, &mut values, &mut notes))
                {
                    continue;
                }
                object.remove(keyword);
                if !notes.is_empty() {
                    let mut description = object
                        .get("description")
                        .and_then(Value::as_str)
                        .map(|d| vec![d.to_owned()])
                        .unwrap_or_default();
                    description.extend(notes);
                    object.insert("description".into(), description.join("\n\n").into());
                }
                object.insert("type".into(), "string".into());
                object.insert("enum".into(), values.into());
            }
            object.values_mut().for_each(plain_enums);
        }
        Value::Array(items) => items.iter_mut().for_each(plain_enums),
        _ => {}
    }
}

/// Adds the strings a `oneOf` member allows (a string `const` or `enum`, nothing else) to `values`,
/// and its description to `notes` (one note a value); false when the member is anything else.
fn string_choices(member: &Value, values: &mut Vec<Value>, notes: &mut Vec<String>) -> bool {
    let Some(member) = member.as_object() else {
        return false;
    };
    let allowed = ["const", "enum", "type", "description"];
    if member.keys().any(|key| !allowed.contains(&key.as_str()))
        || member.get("type").is_some_and(|t| t != "string")
    {
        return false;
    }
    let choices = match (member.get("const"), member.get("enum")) {
        (Some(constant), None) => vec![constant.clone()],
        (None, Some(Value::Array(choices))) => choices.clone(),
        _ => return false,
    };
    if !choices.iter().all(Value::is_string) {
        return false;
    }
    if let Some(description) = member.get("description").and_then(Value::as_str) {
        for choice in &choices {
            notes.push(format!(
                "`{}`: {description}",
                choice.as_str().unwrap_or_default()
            ));
        }
    }
    values.extend(choices);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `$ref` under `value`.
    fn references(value: &Value, found: &mut Vec<String>) {
        match value {
            Value::Object(object) => {
                if let Some(Value::String(target)) = object.get("$ref") {
                    found.push(target.clone());
                }
                object.values().for_each(|v| references(v, found));
            }
            Value::Array(items) => items.iter().for_each(|v| references(v, found)),
            _ => {}
        }
    }

    fn component_names(schemas: &Value) -> Vec<String> {
        let mut names = Vec::new();
        for (group, members) in schemas.as_object().unwrap() {
            for short in members.as_object().unwrap().keys() {
                names.push(component_name(group, short).unwrap());
            }
        }
        names
    }

    #[test]
    fn every_game_has_its_state_setup_and_effects_and_common_its_shared_schemas() {
        let schemas = all();
        for (game, _) in super::games() {
            for name in ["State", "Setup", "Effects", "Options"] {
                assert!(
                    schemas[game][name].is_object(),
                    "{game} has no {name}: {}",
                    schemas[game]
                );
            }
        }
        for name in COMMON_NAMES {
            assert!(schemas[COMMON][name].is_object(), "common has no {name}");
        }
        assert_eq!(schemas.as_object().unwrap().len(), super::games().len() + 1);
    }

    #[test]
    fn every_reference_names_a_schema_that_exists() {
        let schemas = all();
        let names = component_names(&schemas);
        let mut found = Vec::new();
        references(&schemas, &mut found);
        assert!(found.len() > 20, "{found:?}");
        for target in found {
            let name = target
                .strip_prefix("#/components/schemas/")
                .unwrap_or_else(|| panic!("{target} is not a component reference"));
            assert!(names.iter().any(|n| n == name), "{target} names no schema");
        }
    }

    #[test]
    fn states_name_their_rules_and_enums_are_plain() {
        let schemas = all();
        for (game, _) in super::games() {
            let rules = &schemas[game]["State"]["properties"]["rules"]["const"];
            assert_eq!(rules, &json!(format!("{game}@1")), "{game}");
        }
        let text = schemas.to_string();
        assert!(!text.contains("\"oneOf\""), "a oneOf is left: {text}");
        assert!(!text.contains("\"$defs\""), "{text}");
    }

    #[test]
    fn a_one_of_of_constants_becomes_a_plain_enum() {
        let mut schema = json!({"description": "V.", "oneOf": [
            {"type": "string", "const": "a"},
            {"type": "string", "const": "b", "description": "Bee."},
        ]});
        plain_enums(&mut schema);
        assert_eq!(
            schema,
            json!({"description": "V.\n\n`b`: Bee.", "type": "string", "enum": ["a", "b"]})
        );
        let mut documented = json!({"oneOf": [
            {"type": "string", "enum": ["a", "b"]},
            {"type": "string", "const": "c", "description": "See."},
        ]});
        plain_enums(&mut documented);
        assert_eq!(
            documented,
            json!({"description": "`c`: See.", "type": "string", "enum": ["a", "b", "c"]})
        );
        let mut mixed = json!({"oneOf": [{"const": "a"}, {"type": "object"}]});
        let before = mixed.clone();
        plain_enums(&mut mixed);
        assert_eq!(mixed, before);
    }
}
