//! Unit benches of the `hdl` building blocks, each on rust-hdl's simulator and on Verilator.
mod hdl {
    mod skid_buffer;
}
