//! Unit benches of the `hdl` building blocks, each on rust-hdl's simulator and on Verilator.
mod hdl {
    mod crc;
    mod skid_buffer;
    mod width;
}
