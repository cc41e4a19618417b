//! `referee validate --dataset`'s replay: a data set's rows (`rows::Rows`) as their Arrow buffers,
//! which `referee.archives.dataset` hands to pyarrow whole.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use pythonize::pythonize;

use super::NativeTally;
use crate::archive;
use crate::rows::{Int32s, Rows, Strings, Validity};

/// Replays game records as `replay_records` does (the same replay, counts and tally), giving instead of
/// results a data set's rows, one a ply of every legal record: a dict of `rows` (how many) and each
/// column but `source` as its Arrow buffers (`bytes`; a validity bitmap None when it has no null), in
/// pyarrow's `Array.from_buffers` order (`returns`: its offsets, `returns_values` its float64s). A
/// record longer than `max_record_bytes` is its own `malformed-record` (no row), unread.
#[pyfunction]
#[pyo3(signature = (data, first_record=1, tally=false, max_record_bytes=None))]
pub fn replay_rows<'py>(
    py: Python<'py>,
    data: &[u8],
    first_record: usize,
    tally: bool,
    max_record_bytes: Option<usize>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyAny>, Option<NativeTally>)> {
    let options = archive::Options::dataset(tally).bounded(max_record_bytes);
    let output = py.detach(|| archive::replay_records(data, first_record, &options));
    let rows = output.rows.expect("a data set's replay has rows");
    Ok((
        columns(py, &rows)?,
        pythonize(py, &output.counts)?,
        output.tally.map(NativeTally),
    ))
}

fn columns<'py>(py: Python<'py>, rows: &Rows) -> PyResult<Bound<'py, PyDict>> {
    let bytes = |data: &[u8]| Some(PyBytes::new(py, data));
    let validity =
        |validity: &Validity| (validity.nulls > 0).then(|| PyBytes::new(py, &validity.bits));
    let strings = |strings: &Strings| {
        vec![
            validity(&strings.validity),
            bytes(&strings.offsets),
            bytes(&strings.data),
        ]
    };
    let int32s = |ints: &Int32s| vec![validity(&ints.validity), bytes(&ints.values)];
    let columns = PyDict::new(py);
    columns.set_item("rows", rows.rows)?;
    columns.set_item("record", vec![None, bytes(&rows.record)])?;
    columns.set_item("id", strings(&rows.id))?;
    columns.set_item("game", strings(&rows.game))?;
    columns.set_item("ply", vec![None, bytes(&rows.ply)])?;
    columns.set_item("position", strings(&rows.position))?;
    columns.set_item("move", strings(&rows.moves))?;
    columns.set_item("action", int32s(&rows.action))?;
    columns.set_item("to_move", strings(&rows.to_move))?;
    columns.set_item("returns", vec![None, bytes(&rows.returns_offsets)])?;
    columns.set_item("returns_values", vec![None, bytes(&rows.returns)])?;
    Ok(columns)
}
