//! Unit benches of the `hdl` building blocks, each on rust-hdl's simulator and on Verilator.
mod hdl {
    mod flit_decoder;
    mod skid_buffer;
}
