//! The schemes' behaviour tests, one module per scheme or subject, in one test
//! binary (one compile and link instead of one per file: issue 34). Run one
//! scheme's with `cargo test -p ccsim-cc --test schemes <module>::`.

mod oscar_support;
mod sqcc_support;
mod support;
mod timely_family;

mod bolt;
mod dctcp;
mod fncc;
mod hpcc;
mod network;
mod nscc;
mod oscar;
mod patched_timely;
mod pcn;
mod pfc_order;
mod powertcp;
mod rccc;
mod sqcc;
mod srcc;
mod swift;
mod timely;
