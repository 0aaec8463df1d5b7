//! Unit benches of the `hdl` building blocks, each on rust-hdl's simulator and on Verilator.
mod hdl {
    mod active_report;
    mod arbiter;
    mod bits;
    mod commit_fifo;
    mod crc;
    mod credit_counter;
    mod eep_access;
    mod eep_arbiter;
    mod eep_bridge;
    mod eeprom_loader;
    mod fifo;
    mod flit_decoder;
    mod i2c_master;
    mod lfsr;
    mod ltp_deframer;
    mod ltp_striper;
    mod nma_core;
    mod nmp_collector;
    mod nmp_distributor;
    mod nmp_packer;
    mod nmp_unpacker;
    mod nrc_mgmt;
    mod packet_buffer;
    mod reg_access;
    mod reg_arbiter;
    mod reg_file;
    mod relay_station;
    mod rs_mesh;
    mod rx_delivery;
    mod rx_link;
    mod skid_buffer;
    mod stream_mux;
    mod tx_link;
    mod wide;
    mod width;
}
