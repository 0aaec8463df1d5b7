//! The `hpcnet` program's library side: emission of every top of a configuration (shared by
//! the command line and the freshness test of `verilog-out/`) and the flows run over them.
pub mod emit;
pub mod flows;
