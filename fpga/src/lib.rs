//! FPGA side of hpcnet: board tops for the Alchitry Cu and the Yosys / nextpnr-ice40 / icepack flow.
pub mod tops;
