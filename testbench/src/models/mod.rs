//! Rust reference models of the hardware blocks, cycle-accurate at their ports where the
//! benches compare cycle by cycle, transaction-level elsewhere.
pub mod arbiter;
pub mod commit_fifo;
pub mod crc;
pub mod credit_counter;
pub mod damq;
pub mod eeprom_loader;
pub mod fifo;
pub mod formats;
pub mod i2c_eeprom;
pub mod input_port;
pub mod lane_channel;
pub mod ltp_deframer;
pub mod mgmt;
pub mod nma;
pub mod packet_buffer;
pub mod packet_store;
pub mod reg_file;
pub mod relay_station;
pub mod route;
pub mod rx_delivery;
pub mod rx_link;
pub mod stream;
pub mod stream_mux;
pub mod switch;
pub mod tx_link;
pub mod width;
