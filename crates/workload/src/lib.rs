//! Workloads and topologies.
