//! Unit benches of the `hdl` building blocks, each on rust-hdl's simulator and on Verilator.
mod hdl {
    mod flit_decoder;
    mod lfsr;
    mod skid_buffer;
}
