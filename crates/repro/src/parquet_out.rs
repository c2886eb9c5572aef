//! Parquet output (`--format parquet`): `flows.parquet` and `ports.parquet`
//! with the columns of the CSV files, and the streamed trace CSVs converted
//! to Parquet after the run in row groups of [`ROW_GROUP`] rows (memory stays
//! bounded however long the trace). Numbers are stored exactly (`fct_us` as
//! a double of the picosecond value / 1e6, not rounded to 6 decimals as in
//! CSV); a missing value (an unfinished flow's FCT, an unlimited window) is
//! NaN. Snappy-compressed.

use ccsim_core::results::RunResult;
use ccsim_core::time::to_us;
use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;
use std::sync::Arc;

/// Rows per row group when converting a trace CSV.
pub const ROW_GROUP: usize = 1 << 20;

/// One column's values.
pub enum Col {
    I64(Vec<i64>),
    F64(Vec<f64>),
    Str(Vec<String>),
}

impl Col {
    fn parquet_type(&self) -> &'static str {
        match self {
            Col::I64(_) => "INT64",
            Col::F64(_) => "DOUBLE",
            Col::Str(_) => "BYTE_ARRAY",
        }
    }
}

fn err(e: parquet::errors::ParquetError) -> io::Error {
    io::Error::other(e.to_string())
}

/// A Parquet file being written, one row group per [`Writer::group`].
pub struct Writer {
    w: SerializedFileWriter<File>,
}

impl Writer {
    /// Opens `path` for a table whose columns have the names and kinds of
    /// `like` (its values are not written).
    pub fn create(path: &Path, like: &[(&str, Col)]) -> io::Result<Writer> {
        let fields: Vec<String> = like
            .iter()
            .map(|(name, c)| {
                let utf8 = if matches!(c, Col::Str(_)) { " (UTF8)" } else { "" };
                format!("REQUIRED {} {}{utf8};", c.parquet_type(), field_name(name))
            })
            .collect();
        let schema = parse_message_type(&format!("message ccsim {{ {} }}", fields.join(" "))).map_err(err)?;
        let props = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
        let file = File::create(path)?;
        let w = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(props)).map_err(err)?;
        Ok(Writer { w })
    }

    /// Writes one row group (every column the same length).
    pub fn group(&mut self, cols: &[(&str, Col)]) -> io::Result<()> {
        let mut rg = self.w.next_row_group().map_err(err)?;
        let mut i = 0;
        while let Some(mut col) = rg.next_column().map_err(err)? {
            match &cols[i].1 {
                Col::I64(v) => col.typed::<Int64Type>().write_batch(v, None, None).map_err(err)?,
                Col::F64(v) => col.typed::<DoubleType>().write_batch(v, None, None).map_err(err)?,
                Col::Str(v) => {
                    let b: Vec<ByteArray> = v.iter().map(|s| ByteArray::from(s.as_str())).collect();
                    col.typed::<ByteArrayType>().write_batch(&b, None, None).map_err(err)?
                }
            };
            col.close().map_err(err)?;
            i += 1;
        }
        rg.close().map_err(err)?;
        Ok(())
    }

    pub fn close(self) -> io::Result<()> {
        self.w.close().map_err(err)?;
        Ok(())
    }
}

/// Parquet field names: the CSV header's, with characters Parquet's schema
/// syntax does not take replaced by `_`.
fn field_name(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect()
}

/// Writes a whole table as one row group.
pub fn write_table(path: &Path, cols: &[(&str, Col)]) -> io::Result<()> {
    let mut w = Writer::create(path, cols)?;
    w.group(cols)?;
    w.close()
}

fn nan_or(t: Option<u64>) -> f64 {
    t.map(to_us).unwrap_or(f64::NAN)
}

/// `flows.parquet`: the columns of `flows.csv` (`conn`, a message's
/// connection, is NaN for a flow; `workload` is -1 only when no scenario is given).
pub fn flows_table(r: &RunResult, scn: Option<&ccsim_scenario::Scenario>) -> Vec<(&'static str, Col)> {
    let f = &r.flows;
    let workload =
        |x: &ccsim_core::results::FlowResult| scn.map_or(x.tag, |s| s.workload_of(x)).map_or(-1, |w| w as i64);
    vec![
        ("id", Col::I64(f.iter().map(|x| x.id as i64).collect())),
        ("src", Col::I64(f.iter().map(|x| x.src as i64).collect())),
        ("dst", Col::I64(f.iter().map(|x| x.dst as i64).collect())),
        ("size", Col::I64(f.iter().map(|x| x.size as i64).collect())),
        ("start_us", Col::F64(f.iter().map(|x| to_us(x.start)).collect())),
        ("fct_us", Col::F64(f.iter().map(|x| nan_or(x.fct)).collect())),
        ("ideal_fct_us", Col::F64(f.iter().map(|x| to_us(x.ideal_fct)).collect())),
        ("slowdown", Col::F64(f.iter().map(|x| x.slowdown.unwrap_or(f64::NAN)).collect())),
        ("retransmits", Col::I64(f.iter().map(|x| x.retransmits as i64).collect())),
        ("workload", Col::I64(f.iter().map(workload).collect())),
        ("conn", Col::F64(f.iter().map(|x| x.conn.map_or(f64::NAN, |c| c as f64)).collect())),
        ("timeouts", Col::I64(f.iter().map(|x| x.timeouts as i64).collect())),
        ("trimmed", Col::I64(f.iter().map(|x| x.trimmed as i64).collect())),
        ("drops", Col::I64(f.iter().map(|x| x.drops as i64).collect())),
    ]
}

/// `conns.parquet`: the columns of `conns.csv` (one row per connection).
pub fn conns_table(r: &RunResult) -> Vec<(&'static str, Col)> {
    let c = &r.conns;
    let int = |f: &dyn Fn(&ccsim_core::results::ConnResult) -> u64| Col::I64(c.iter().map(|x| f(x) as i64).collect());
    vec![
        ("id", int(&|x| x.id as u64)),
        ("src", int(&|x| x.src as u64)),
        ("dst", int(&|x| x.dst as u64)),
        ("messages", int(&|x| x.messages as u64)),
        ("completed", int(&|x| x.completed as u64)),
        ("bytes", int(&|x| x.bytes)),
        ("acked", int(&|x| x.acked)),
        ("retransmits", int(&|x| x.retransmits)),
        ("timeouts", int(&|x| x.timeouts)),
        ("trimmed", int(&|x| x.trimmed)),
        ("drops", int(&|x| x.drops)),
    ]
}

/// `ports.parquet`: the columns of `ports.csv`.
pub fn ports_table(r: &RunResult) -> Vec<(&'static str, Col)> {
    let p = &r.ports;
    let int = |f: &dyn Fn(&ccsim_core::results::PortResult) -> u64| Col::I64(p.iter().map(|x| f(x) as i64).collect());
    vec![
        ("node", int(&|x| x.port.node as u64)),
        ("peer", int(&|x| x.port.peer as u64)),
        ("rate_gbps", Col::F64(p.iter().map(|x| x.rate_bps as f64 / 1e9).collect())),
        ("tx_bytes", int(&|x| x.tx_bytes)),
        ("tx_data_bytes", int(&|x| x.tx_data_bytes)),
        ("pause_sent", int(&|x| x.pause_sent)),
        ("paused_us", Col::F64(p.iter().map(|x| to_us(x.paused_time)).collect())),
        ("drops", int(&|x| x.drops)),
        ("ecn_marked", int(&|x| x.ecn_marked)),
        ("max_qlen_bytes", int(&|x| x.max_qlen)),
        ("trimmed", int(&|x| x.trimmed)),
    ]
}

/// Converts a trace CSV written by the run (`queues.csv`, `flow_traces.csv`,
/// ...) into `<stem>.parquet` beside it, in row groups, then removes the
/// CSV. Columns named `port` are text, `flow` integer, the others numbers
/// (an empty field is NaN).
pub fn convert_trace_csv(csv: &Path) -> io::Result<()> {
    let mut lines = BufReader::new(File::open(csv)?).lines();
    let Some(header) = lines.next().transpose()? else {
        return Ok(());
    };
    let names: Vec<String> = header.split(',').map(str::to_string).collect();
    let empty = |n: &str| match n {
        "port" => Col::Str(Vec::new()),
        "flow" => Col::I64(Vec::new()),
        _ => Col::F64(Vec::new()),
    };
    let fresh = || names.iter().map(|n| (n.as_str(), empty(n))).collect::<Vec<_>>();
    let out = csv.with_extension("parquet");
    let mut w = Writer::create(&out, &fresh())?;
    let mut cols = fresh();
    let mut rows = 0;
    let bad = |line: &str| io::Error::other(format!("{}: cannot read the trace line {line:?}", csv.display()));
    for line in lines {
        let line = line?;
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != cols.len() {
            return Err(bad(&line));
        }
        for ((_, c), f) in cols.iter_mut().zip(&fields) {
            match c {
                Col::Str(v) => v.push(f.to_string()),
                Col::I64(v) => v.push(f.parse().map_err(|_| bad(&line))?),
                Col::F64(v) => v.push(if f.is_empty() { f64::NAN } else { f.parse().map_err(|_| bad(&line))? }),
            }
        }
        rows += 1;
        if rows == ROW_GROUP {
            w.group(&cols)?;
            cols = fresh();
            rows = 0;
        }
    }
    if rows > 0 {
        w.group(&cols)?;
    }
    w.close()?;
    std::fs::remove_file(csv)
}

/// Writes `flows.parquet` and `ports.parquet` into `dir` and converts the
/// trace CSVs there.
pub fn write_run_parquet(dir: &Path, r: &RunResult, scn: &ccsim_scenario::Scenario) -> io::Result<()> {
    write_table(&dir.join("flows.parquet"), &flows_table(r, Some(scn)))?;
    if !r.conns.is_empty() {
        write_table(&dir.join("conns.parquet"), &conns_table(r))?;
    }
    write_table(&dir.join("ports.parquet"), &ports_table(r))?;
    for name in ["queues.csv", "utilization.csv", "flow_traces.csv", "changes.csv", "acks.csv"] {
        let p = dir.join(name);
        if p.is_file() {
            convert_trace_csv(&p)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;

    fn read(path: &Path) -> (Vec<String>, Vec<Vec<Field>>, usize) {
        let r = SerializedFileReader::new(File::open(path).unwrap()).unwrap();
        let groups = r.metadata().num_row_groups();
        let names =
            r.metadata().file_metadata().schema_descr().columns().iter().map(|c| c.name().to_string()).collect();
        let rows = r
            .get_row_iter(None)
            .unwrap()
            .map(|row| row.unwrap().get_column_iter().map(|(_, f)| f.clone()).collect())
            .collect();
        (names, rows, groups)
    }

    #[test]
    fn a_trace_csv_becomes_parquet_with_types_and_nan_for_blanks() {
        let t = ccsim_scenario::testutil::TempDir::new("pq");
        let csv = t.path().join("flow_traces.csv");
        std::fs::write(&csv, "flow,t_us,rate_gbps,window_bytes\n0,0,100,\n0,1.5,50.25,1000\n3,2,25,2000\n").unwrap();
        convert_trace_csv(&csv).unwrap();
        assert!(!csv.exists(), "the CSV is replaced");
        let (names, rows, groups) = read(&t.path().join("flow_traces.parquet"));
        assert_eq!(names, ["flow", "t_us", "rate_gbps", "window_bytes"]);
        assert_eq!(groups, 1);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[1][0], Field::Long(0));
        assert_eq!(rows[1][2], Field::Double(50.25));
        assert!(matches!(rows[0][3], Field::Double(x) if x.is_nan()));
        assert_eq!(rows[2][0], Field::Long(3));
        let q = t.path().join("queues.csv");
        std::fs::write(&q, "port,t_us,queue_bytes\n17:16,0,0\n17:16,5,1048\n").unwrap();
        convert_trace_csv(&q).unwrap();
        let (_, rows, _) = read(&t.path().join("queues.parquet"));
        assert_eq!(rows[1][0], Field::Str("17:16".into()));
        assert_eq!(rows[1][2], Field::Double(1048.0));
        let bad = t.path().join("acks.csv");
        std::fs::write(&bad, "flow,t_us\n0,x\n").unwrap();
        assert!(convert_trace_csv(&bad).unwrap_err().to_string().contains("cannot read the trace line"));
    }

    #[test]
    fn flows_parquet_holds_exact_values() {
        use ccsim_core::results::FlowResult;
        let r = RunResult {
            flows: vec![FlowResult {
                id: 7,
                src: 1,
                dst: 2,
                size: 1000,
                start: 1_234_567,
                fct: None,
                ideal_fct: 5_000_001,
                slowdown: None,
                retransmits: 3,
                conn: None,
                tag: None,
                timeouts: 2,
                trimmed: 1,
                drops: 4,
            }],
            ..Default::default()
        };
        let t = ccsim_scenario::testutil::TempDir::new("pqf");
        write_table(&t.path().join("flows.parquet"), &flows_table(&r, None)).unwrap();
        let (names, rows, _) = read(&t.path().join("flows.parquet"));
        assert_eq!(names[5], "fct_us");
        assert_eq!(rows[0][0], Field::Long(7));
        assert_eq!(rows[0][4], Field::Double(1.234567));
        assert!(matches!(rows[0][5], Field::Double(x) if x.is_nan()));
        assert_eq!(rows[0][6], Field::Double(5.000001));
        assert_eq!(rows[0][8], Field::Long(3));
        // the losses, in the order of flows.csv
        let at = |name: &str| names.iter().position(|n| n == name).unwrap();
        assert_eq!(names.join(","), crate::output::FLOWS_CSV_HEADER);
        assert_eq!(rows[0][at("timeouts")], Field::Long(2));
        assert_eq!(rows[0][at("trimmed")], Field::Long(1));
        assert_eq!(rows[0][at("drops")], Field::Long(4));
    }
}
