//! `ccsim._native`, the Python package's compiled module: the simulator
//! linked in (no subprocess). It reads scenarios with the same code and
//! messages as the `ccsim` command, runs them with the GIL released, and
//! hands results to Python as typed column buffers (little-endian `f64` or
//! `i64` bytes, or lists of strings) that `ccsim/__init__.py` turns
//! into Arrow arrays and pandas DataFrames. The pure-Python layer owns the
//! public API and its documentation; this module stays small.

use ccsim_core::results::RunResult;
use ccsim_core::time::to_us;
use ccsim_repro::parquet_out::{conns_table, flows_table, ports_table, Col};
use ccsim_scenario::{load_text, Overrides, Scenario};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::path::{Path, PathBuf};

create_exception!(
    ccsim,
    ScenarioError,
    PyValueError,
    "A scenario (file, dict or override) is invalid; the message names the file, key and value."
);
create_exception!(ccsim, SimulationError, PyRuntimeError, "A simulation could not be run or failed its checks.");

/// Where a scenario came from, so it can be read again with other overrides
/// (a seed changes the generated workload, so a run re-reads its scenario).
#[derive(Clone)]
struct Source {
    label: String,
    text: String,
    base_dir: PathBuf,
    stem: String,
    sets: Vec<(String, toml::Value)>,
}

impl Source {
    fn read(&self, ov: &Overrides) -> Result<Scenario, String> {
        load_text(&self.label, &self.text, &self.base_dir, &self.stem, ov)
    }
}

/// A scenario read and validated like `ccsim validate` does.
#[pyclass(module = "ccsim._native", frozen)]
struct NativeScenario {
    src: Source,
    scn: Scenario,
}

fn scenario_error(e: String) -> PyErr {
    ScenarioError::new_err(e)
}

/// How deeply dicts and lists may nest in a value given to a scenario (a
/// scenario file needs four levels; the limit keeps a runaway structure
/// from exhausting the native stack).
pub const MAX_DEPTH: usize = 64;

/// A Python value as a TOML value: str, bool, int, float, lists and dicts
/// (string keys) of them. `path` names the value in errors. A container
/// that holds itself, or nesting deeper than [`MAX_DEPTH`], is refused.
fn to_toml(v: &Bound<'_, PyAny>, path: &str) -> PyResult<toml::Value> {
    to_toml_in(v, path, &mut Vec::new())
}

/// A path for messages: the empty path (the value given) is "the value".
fn shown(path: &str) -> &str {
    if path.is_empty() {
        "the value"
    } else {
        path
    }
}

/// [`to_toml`] below the containers in `open` (their addresses, outermost first).
fn to_toml_in(v: &Bound<'_, PyAny>, path: &str, open: &mut Vec<usize>) -> PyResult<toml::Value> {
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        let i: i64 = v
            .extract()
            .map_err(|_| scenario_error(format!("{path} = {v}: integer out of range (at most {})", i64::MAX)))?;
        return Ok(toml::Value::Integer(i));
    }
    if v.is_instance_of::<PyFloat>() {
        let f: f64 = v.extract()?;
        if !f.is_finite() {
            return Err(scenario_error(format!("{path} = {f}: not a finite number")));
        }
        return Ok(toml::Value::Float(f));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(v.extract()?));
    }
    if v.is_instance_of::<PyBytes>() || v.is_instance_of::<PyByteArray>() {
        return Err(scenario_error(format!("{path} = {v}: bytes cannot be written in a scenario (use a str)")));
    }
    let is_dict = v.is_instance_of::<PyDict>();
    if !(is_dict || v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() || v.hasattr("__iter__")?) {
        return Err(scenario_error(format!(
            "{path} = {v}: a {} cannot be written in a scenario (use str, int, float, bool, list or dict)",
            v.get_type().name()?
        )));
    }
    let id = v.as_ptr() as usize;
    if open.contains(&id) {
        return Err(scenario_error(format!(
            "{}: a {} that contains itself (a cycle) cannot be written in a scenario",
            shown(path),
            v.get_type().name()?
        )));
    }
    if open.len() >= MAX_DEPTH {
        return Err(scenario_error(format!(
            "{}: dicts and lists nested deeper than {MAX_DEPTH} levels cannot be written in a scenario",
            shown(path)
        )));
    }
    open.push(id);
    let out = if let Ok(d) = v.downcast::<PyDict>() {
        let mut t = toml::Table::new();
        for (k, x) in d.iter() {
            let key: String = k.extract().map_err(|_| scenario_error(format!("{path}: key {k} is not a string")))?;
            let sub = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
            t.insert(key, to_toml_in(&x, &sub, open)?);
        }
        toml::Value::Table(t)
    } else {
        let mut items = Vec::new();
        for (i, x) in v.try_iter()?.enumerate() {
            items.push(to_toml_in(&x?, &format!("{path}[{i}]"), open)?);
        }
        toml::Value::Array(items)
    };
    open.pop();
    Ok(out)
}

/// `set={"key.path": value}` as overrides, in the dict's order.
fn sets_of(set: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, toml::Value)>> {
    let mut out = Vec::new();
    if let Some(d) = set {
        for (k, v) in d.iter() {
            let key: String = k.extract().map_err(|_| scenario_error(format!("set: key {k} is not a string")))?;
            out.push((key.clone(), to_toml(&v, &key)?));
        }
    }
    Ok(out)
}

#[pymethods]
impl NativeScenario {
    /// Reads a scenario file; `set` overrides values as `--set` does.
    #[staticmethod]
    #[pyo3(signature = (path, set=None))]
    fn from_file(path: PathBuf, set: Option<&Bound<'_, PyDict>>) -> PyResult<NativeScenario> {
        let f = ccsim_scenario::read_file(&path).map_err(scenario_error)?;
        NativeScenario::new(Source {
            label: f.label,
            text: f.text,
            base_dir: f.base_dir,
            stem: f.stem,
            sets: sets_of(set)?,
        })
    }

    /// A scenario from a dict with the layout of a scenario file; relative
    /// paths in it start at `base_dir`; errors name `label`.
    #[staticmethod]
    #[pyo3(signature = (doc, label, base_dir, set=None))]
    fn from_dict(
        doc: &Bound<'_, PyDict>,
        label: String,
        base_dir: PathBuf,
        set: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<NativeScenario> {
        let table = match to_toml(doc.as_any(), "")? {
            toml::Value::Table(t) => t,
            _ => unreachable!("a dict is a table"),
        };
        let text = toml::to_string(&table).map_err(|e| scenario_error(format!("{label}: {e}")))?;
        let stem = Path::new(&label).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or(label.clone());
        NativeScenario::new(Source { label, text, base_dir, stem, sets: sets_of(set)? })
    }

    /// The scenario's name.
    #[getter]
    fn name(&self) -> &str {
        &self.scn.name
    }

    /// Where errors say the scenario came from (its path, or the dict's label).
    #[getter]
    fn label(&self) -> &str {
        &self.src.label
    }

    /// The key paths of the overrides (`set`) it was read with.
    #[getter]
    fn overrides(&self) -> Vec<String> {
        self.src.sets.iter().map(|(k, _)| k.clone()).collect()
    }

    #[getter]
    fn schemes(&self) -> Vec<String> {
        self.scn.schemes.clone()
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.scn.seed
    }

    #[getter]
    fn hosts(&self) -> usize {
        self.scn.topo.hosts().len()
    }

    #[getter]
    fn flows(&self) -> usize {
        self.scn.flows.len()
    }

    /// The scenario as TOML, overrides applied (what `scenario.toml` holds).
    #[getter]
    fn text(&self) -> &str {
        &self.scn.text
    }

    /// One paragraph, as `ccsim validate` prints it.
    fn describe(&self) -> String {
        self.scn.summary()
    }

    /// The same scenario with more overrides (`set`, a seed).
    #[pyo3(signature = (set=None, seed=None))]
    fn with_overrides(&self, set: Option<&Bound<'_, PyDict>>, seed: Option<u64>) -> PyResult<NativeScenario> {
        let mut src = self.src.clone();
        src.sets.extend(sets_of(set)?);
        let scn =
            src.read(&Overrides { seed, sets: src.sets.clone(), ..Default::default() }).map_err(scenario_error)?;
        scn.check_schemes().map_err(scenario_error)?;
        Ok(NativeScenario { src, scn })
    }

    /// Simulates `scheme` (default: the scenario's first) with the GIL
    /// released; Ctrl-C stops the run at the next event boundary and the
    /// partial result comes back marked `interrupted`.
    #[pyo3(signature = (scheme=None, seed=None, stop=None, check=false))]
    fn run(
        &self,
        py: Python<'_>,
        scheme: Option<String>,
        seed: Option<u64>,
        stop: Option<String>,
        check: bool,
    ) -> PyResult<NativeResult> {
        let stop = match stop {
            None => None,
            Some(s) => match ccsim_core::units::parse_dur(&s) {
                Ok(0) => return Err(scenario_error(format!("stop = {s:?}: must be greater than zero"))),
                Ok(t) => Some(t),
                Err(e) => return Err(scenario_error(format!("stop = {s:?}: {e}"))),
            },
        };
        let mut scn = if seed.is_some() || stop.is_some() {
            self.src
                .read(&Overrides { seed, stop, sets: self.src.sets.clone(), ..Default::default() })
                .map_err(scenario_error)?
        } else {
            self.scn.clone()
        };
        let name = scheme.unwrap_or_else(|| scn.schemes[0].clone());
        scn.make_scheme(&name).map_err(scenario_error)?;
        scn.check = check;
        scn.trace.dir = None;
        let interrupt = scn.interrupt.clone();
        let r = py.allow_threads(|| {
            let mut watch = |_: &ccsim_core::sim::Progress| {
                if Python::with_gil(|py| py.check_signals()).is_err() {
                    interrupt.set();
                }
            };
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| scn.simulate(&name, Some(&mut watch))))
        });
        let r = match r {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => return Err(SimulationError::new_err(e)),
            Err(p) => {
                let msg = ccsim_repro::exec::panic_message(p.as_ref());
                return Err(SimulationError::new_err(format!("{}: {name}: the simulator panicked: {msg}", scn.label)));
            }
        };
        Ok(NativeResult { scn, scheme: name, r })
    }
}

impl NativeScenario {
    fn new(src: Source) -> PyResult<NativeScenario> {
        let scn = src.read(&Overrides { sets: src.sets.clone(), ..Default::default() }).map_err(scenario_error)?;
        scn.check_schemes().map_err(scenario_error)?;
        Ok(NativeScenario { src, scn })
    }
}

fn col_py<'py>(py: Python<'py>, c: &Col) -> PyResult<Bound<'py, PyTuple>> {
    let bytes = |b: Vec<u8>| PyBytes::new(py, &b).into_any();
    let (kind, data) = match c {
        Col::F64(v) => ("f64", bytes(v.iter().flat_map(|x| x.to_le_bytes()).collect())),
        Col::I64(v) => ("i64", bytes(v.iter().flat_map(|x| x.to_le_bytes()).collect())),
        Col::Str(v) => ("str", PyList::new(py, v)?.into_any()),
    };
    PyTuple::new(py, [PyString::new(py, kind).into_any(), data])
}

/// Traced port series as long format: port, t_us, `value`.
fn series_table(s: &[ccsim_core::results::Series], value: &'static str) -> Vec<(&'static str, Col)> {
    let port = s.iter().flat_map(|x| std::iter::repeat_n(x.name.clone(), x.t.len())).collect();
    let t = s.iter().flat_map(|x| x.t.iter().map(|&t| to_us(t))).collect();
    let v = s.iter().flat_map(|x| x.v.iter().copied()).collect();
    vec![("port", Col::Str(port)), ("t_us", Col::F64(t)), (value, Col::F64(v))]
}

fn traces_table(r: &RunResult) -> Vec<(&'static str, Col)> {
    let tr = &r.flow_traces;
    let flat =
        |f: &dyn Fn(&ccsim_core::results::FlowTrace) -> Vec<f64>| -> Vec<f64> { tr.iter().flat_map(f).collect() };
    let unlimited = u64::MAX as f64;
    vec![
        ("flow", Col::I64(tr.iter().flat_map(|x| std::iter::repeat_n(x.flow as i64, x.t.len())).collect())),
        ("t_us", Col::F64(flat(&|x| x.t.iter().map(|&t| to_us(t)).collect()))),
        ("rate_gbps", Col::F64(flat(&|x| x.rate_bps.iter().map(|r| r / 1e9).collect()))),
        (
            "window_bytes",
            Col::F64(flat(&|x| x.window.iter().map(|&w| if w >= unlimited { f64::NAN } else { w }).collect())),
        ),
        ("acked_bytes", Col::F64(flat(&|x| x.acked.clone()))),
        ("probe", Col::F64(flat(&|x| x.probe.clone()))),
    ]
}

/// The table `name` of a result: the same columns as the files `ccsim run`
/// writes (flows.csv, conns.csv, ports.csv, the trace CSVs).
fn table_columns(r: &RunResult, scn: Option<&Scenario>, name: &str) -> PyResult<Vec<(&'static str, Col)>> {
    Ok(match name {
        "flows" => flows_table(r, scn),
        "ports" => ports_table(r),
        "conns" => conns_table(r),
        "queues" => series_table(&r.queues, "queue_bytes"),
        "utilization" => series_table(&r.utilization, "utilization"),
        "traces" => traces_table(r),
        _ => {
            return Err(PyValueError::new_err(format!(
                "no table {name:?}: flows, conns, ports, queues, utilization or traces"
            )))
        }
    })
}

/// The columns of table `name` (see `NativeResult.table`) and their kinds
/// ("f64", "i64" or "str"), for reading a table back from a results folder.
#[pyfunction]
fn table_kinds(name: &str) -> PyResult<Vec<(String, String)>> {
    let kind = |c: &Col| match c {
        Col::F64(_) => "f64",
        Col::I64(_) => "i64",
        Col::Str(_) => "str",
    };
    Ok(table_columns(&RunResult::default(), None, name)?
        .iter()
        .map(|(n, c)| (n.to_string(), kind(c).to_string()))
        .collect())
}

/// One finished (or stopped, deadlocked, interrupted) simulation.
#[pyclass(module = "ccsim._native", frozen)]
struct NativeResult {
    scn: Scenario,
    scheme: String,
    r: RunResult,
}

#[pymethods]
impl NativeResult {
    #[getter]
    fn scheme(&self) -> &str {
        &self.scheme
    }

    /// How the run ended: completed, stopped, deadlock, stalled, interrupted.
    #[getter]
    fn status(&self) -> &str {
        self.r.status.name()
    }

    /// `summary.json` of the CLI, as JSON text.
    fn summary_json(&self) -> String {
        ccsim_repro::output::summary_json(&self.scn, &self.scheme, &self.r).to_string()
    }

    /// `run.json` of the CLI (the file and `--set` overrides; wall and CPU
    /// time, events/s), as JSON text.
    fn run_json(&self) -> String {
        ccsim_repro::output::run_json(&self.scn, &self.r).to_string()
    }

    /// A table as [(column, (kind, data))]: kind "f64"/"i64" with
    /// little-endian bytes, or "str" with a list. Tables: flows, ports,
    /// queues, utilization, traces.
    fn table<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyList>> {
        let cols = table_columns(&self.r, Some(&self.scn), name)?;
        let items: Vec<Bound<'py, PyTuple>> = cols
            .iter()
            .map(|(n, c)| PyTuple::new(py, [PyString::new(py, n).into_any(), col_py(py, c)?.into_any()]))
            .collect::<PyResult<_>>()?;
        PyList::new(py, items)
    }

    /// Writes the CLI's result files (flows.csv, ports.csv, summary.json,
    /// run.json, scenario.toml, charts) into `dir`; the traces are in
    /// `table("queues")` etc.
    fn write(&self, py: Python<'_>, dir: PathBuf) -> PyResult<()> {
        py.allow_threads(|| -> std::io::Result<()> {
            std::fs::create_dir_all(&dir)?;
            ccsim_repro::output::write_run_files(&dir, &self.scn, &self.scheme, &self.r)
        })
        .map_err(|e| SimulationError::new_err(format!("cannot write results to {}: {e}", dir.display())))
    }
}

/// A sweep point for Python: its grid as (key, value text), its run as JSON.
type PlannedPoint = (Vec<(String, String)>, String);

/// The points of a sweep over the scenario file `path`: `grid` is
/// [(key, [values])] in axis order (a `scheme` axis is appended when
/// missing, with the scenario's schemes). Returns per point its grid as
/// [(key, value text)] and its run as JSON (a `RunSpec`, for any worker).
#[pyfunction]
fn plan_sweep(
    path: PathBuf,
    grid: Vec<(String, Vec<Bound<'_, PyAny>>)>,
    version: String,
) -> PyResult<Vec<PlannedPoint>> {
    let axes = grid
        .iter()
        .map(|(key, vals)| {
            let values = vals.iter().map(|v| to_toml(v, key)).collect::<PyResult<Vec<_>>>()?;
            Ok(ccsim_repro::sweep::Axis { key: key.clone(), values })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let points = ccsim_repro::sweep::plan(&path, &axes, &version).map_err(scenario_error)?;
    points
        .into_iter()
        .map(|p| {
            let grid = p.grid.iter().map(|(k, v)| (k.clone(), ccsim_repro::sweep::value_text(v))).collect();
            let spec = serde_json::to_string(&p.spec).map_err(|e| SimulationError::new_err(e.to_string()))?;
            Ok((grid, spec))
        })
        .collect()
}

/// A sweep point's outcome: (status, [(metric, value)]).
type PointMetrics = (String, Vec<(String, f64)>);

fn point_metrics(spec: &ccsim_repro::plan::RunSpec, r: &RunResult) -> PointMetrics {
    (r.status.name().to_string(), ccsim_repro::sweep::point_metrics(spec, r))
}

/// Runs one sweep point (a `RunSpec` as JSON) with the GIL released;
/// returns (status, [(metric, value)]). With `cache_dir`, the finished run
/// is also stored in the run cache there, as `ccsim sweep` stores it (a
/// run that cannot be stored fails, as on the command line). What a
/// thread or worker process calls.
#[pyfunction]
#[pyo3(signature = (spec, cache_dir=None))]
fn run_point(py: Python<'_>, spec: &str, cache_dir: Option<PathBuf>) -> PyResult<PointMetrics> {
    let spec: ccsim_repro::plan::RunSpec =
        serde_json::from_str(spec).map_err(|e| SimulationError::new_err(format!("not a sweep point: {e}")))?;
    let r = py
        .allow_threads(|| {
            let r = ccsim_repro::exec::simulate(&spec)?;
            if let Some(dir) = &cache_dir {
                ccsim_repro::cache::Cache::new(dir).put(&spec, &r)?;
            }
            Ok::<_, String>(r)
        })
        .map_err(|e| {
            SimulationError::new_err(format!("{} {} seed {}: {e}", spec.scenario.display(), spec.scheme, spec.seed))
        })?;
    Ok(point_metrics(&spec, &r))
}

/// The sweep point of run `key` read from the run cache at `cache_dir`
/// (written by `ccsim sweep`, `ccsim reproduce` or `ccsim.sweep` of the
/// same build): (status, [(metric, value)]) as [`run_point`] returns them,
/// or None when the cache holds no readable run under `key`.
#[pyfunction]
fn cached_point(py: Python<'_>, cache_dir: PathBuf, key: &str) -> Option<PointMetrics> {
    py.allow_threads(|| {
        let stored = ccsim_repro::cache::Cache::new(&cache_dir).get(key)?;
        Some(point_metrics(&stored.spec, &stored.result))
    })
}

/// A sweep point from [`run_encoded`]'s bytes (a run simulated elsewhere,
/// on a Dask worker): (status, [(metric, value)]); with `cache_dir`, the
/// run is stored in the run cache there first.
#[pyfunction]
#[pyo3(signature = (data, cache_dir=None))]
fn point_of_encoded(py: Python<'_>, data: &[u8], cache_dir: Option<PathBuf>) -> PyResult<PointMetrics> {
    py.allow_threads(|| {
        let stored = ccsim_repro::cache::Cache::decode(data)?;
        if let Some(dir) = &cache_dir {
            ccsim_repro::cache::Cache::new(dir).put(&stored.spec, &stored.result)?;
        }
        Ok::<_, String>(point_metrics(&stored.spec, &stored.result))
    })
    .map_err(SimulationError::new_err)
}

/// A hash of a file (the native library: the version part of run keys).
#[pyfunction]
fn version_of(path: PathBuf) -> String {
    ccsim_repro::cache::version_of(&path)
}

/// The papers with a manifest under `root` (`paper` = one of them or "all").
#[pyfunction]
fn reproduce_papers(root: PathBuf, paper: &str) -> PyResult<Vec<String>> {
    let all = ccsim_repro::manifest::papers(&root).map_err(scenario_error)?;
    match paper {
        "all" => Ok(all),
        p if all.iter().any(|x| x == p) => Ok(vec![p.to_string()]),
        p => Err(scenario_error(format!("unknown paper '{p}' (known: {}, all)", all.join(", ")))),
    }
}

fn repro_options(
    full: bool,
    seeds: Option<u32>,
    claims: Option<Vec<String>>,
    version: String,
) -> ccsim_repro::plan::Options {
    ccsim_repro::plan::Options { full, seeds, claims, version, outline: false }
}

/// The runs of `ccsim reproduce` for `papers`, each a `RunSpec` as JSON
/// (deduplicated, in plan order).
#[pyfunction]
#[pyo3(signature = (root, papers, full, seeds, claims, version))]
fn reproduce_plan(
    root: PathBuf,
    papers: Vec<String>,
    full: bool,
    seeds: Option<u32>,
    claims: Option<Vec<String>>,
    version: String,
) -> PyResult<Vec<String>> {
    let plan = ccsim_repro::plan::plan(&root, &papers, &repro_options(full, seeds, claims, version))
        .map_err(scenario_error)?;
    plan.runs.iter().map(|r| serde_json::to_string(r).map_err(|e| SimulationError::new_err(e.to_string()))).collect()
}

/// Runs one planned run (JSON) with the GIL released and returns it
/// encoded as the run cache stores it. What a Dask worker calls.
#[pyfunction]
fn run_encoded<'py>(py: Python<'py>, spec: &str) -> PyResult<Bound<'py, PyBytes>> {
    let spec: ccsim_repro::plan::RunSpec =
        serde_json::from_str(spec).map_err(|e| SimulationError::new_err(format!("not a planned run: {e}")))?;
    let bytes = py
        .allow_threads(|| {
            let r = ccsim_repro::exec::simulate(&spec)?;
            ccsim_repro::cache::Cache::encode(&spec, &r)
        })
        .map_err(|e| SimulationError::new_err(format!("{}: {e}", spec.label())))?;
    Ok(PyBytes::new(py, &bytes))
}

/// Stores [`run_encoded`]'s bytes in the run cache at `cache_dir`.
#[pyfunction]
fn cache_store(cache_dir: PathBuf, data: &[u8]) -> PyResult<()> {
    let stored = ccsim_repro::cache::Cache::decode(data).map_err(SimulationError::new_err)?;
    ccsim_repro::cache::Cache::new(&cache_dir).put(&stored.spec, &stored.result).map_err(SimulationError::new_err)
}

/// Whether the run cache at `cache_dir` holds run `key`.
#[pyfunction]
fn cache_has(cache_dir: PathBuf, key: &str) -> bool {
    ccsim_repro::cache::Cache::new(&cache_dir).contains(key)
}

/// A paper's claim counts: (paper, claims, reproduced, direction only, not
/// reproduced, error, not simulated, report path).
/// A paper, its counts by name (`record::COUNT_NAMES`) and its report's path.
type PaperCounts = (String, Vec<(String, usize)>, String);

/// Writes the reports of `ccsim reproduce` from the run cache (`failed`:
/// run key -> error for the runs that failed); returns each paper's counts.
#[pyfunction]
#[pyo3(signature = (root, papers, full, seeds, claims, version, cache_dir, out, failed))]
#[allow(clippy::too_many_arguments)]
fn reproduce_report(
    py: Python<'_>,
    root: PathBuf,
    papers: Vec<String>,
    full: bool,
    seeds: Option<u32>,
    claims: Option<Vec<String>>,
    version: String,
    cache_dir: PathBuf,
    out: PathBuf,
    failed: std::collections::HashMap<String, String>,
) -> PyResult<Vec<PaperCounts>> {
    use ccsim_repro::exec::Outcome;
    let sums = py
        .allow_threads(|| {
            let opts = repro_options(full, seeds, claims, version.clone());
            let plan = ccsim_repro::plan::plan(&root, &papers, &opts)?;
            let cache = ccsim_repro::cache::Cache::new(&cache_dir);
            let outcomes: Vec<Outcome> = plan
                .runs
                .iter()
                .map(|r| match failed.get(&r.key) {
                    Some(e) => Outcome::Failed(e.clone()),
                    None if cache.contains(&r.key) => Outcome::Cached,
                    None => Outcome::Failed("not run".into()),
                })
                .collect();
            ccsim_repro::report::write(&plan, &cache, &outcomes, &out, &version)
        })
        .map_err(SimulationError::new_err)?;
    Ok(sums
        .iter()
        .map(|s| {
            let names = ccsim_repro::report::record::COUNT_NAMES.iter().map(|n| n.to_string());
            let counts: Vec<(String, usize)> = names.zip(s.tally.counts()).collect();
            (s.paper.clone(), counts, s.dir.join("report.md").display().to_string())
        })
        .collect())
}

/// The names of the registered schemes.
#[pyfunction]
fn scheme_names() -> Vec<String> {
    ccsim_scenario::registry::scheme_names()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeScenario>()?;
    m.add_class::<NativeResult>()?;
    m.add_function(wrap_pyfunction!(scheme_names, m)?)?;
    m.add_function(wrap_pyfunction!(table_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(plan_sweep, m)?)?;
    m.add_function(wrap_pyfunction!(run_point, m)?)?;
    m.add_function(wrap_pyfunction!(cached_point, m)?)?;
    m.add_function(wrap_pyfunction!(point_of_encoded, m)?)?;
    m.add_function(wrap_pyfunction!(version_of, m)?)?;
    m.add_function(wrap_pyfunction!(reproduce_papers, m)?)?;
    m.add_function(wrap_pyfunction!(reproduce_plan, m)?)?;
    m.add_function(wrap_pyfunction!(run_encoded, m)?)?;
    m.add_function(wrap_pyfunction!(cache_store, m)?)?;
    m.add_function(wrap_pyfunction!(cache_has, m)?)?;
    m.add_function(wrap_pyfunction!(reproduce_report, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_DEPTH", MAX_DEPTH)?;
    Ok(())
}
