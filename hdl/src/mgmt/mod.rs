//! The network management agent (NMA): the one design inside every NIC and NRC that receives
//! management packets ([`crate::formats::mgmt`]), carries out their register and EEPROM
//! requests, and sends responses and fault reports back along their backward routes.
//!
//! A request's words wait in block RAM ([`packet_store::PacketStore`]) while its units pass
//! narrow tickets ([`ticket`]) on [`StreamSource`](crate::stream::StreamSource)/
//! [`StreamSink`](crate::stream::StreamSink) pairs:
//! - [`NmpUnpacker`]: flits in, checked, their words into the store (the arrival port appended
//!   to the backward route), request tickets out; wrong-ID and malformed packets dropped and
//!   counted;
//! - [`SlotPool`]: lends the store's slots, one per request held, from the unpacker to the
//!   packer;
//! - [`NmpDistributor`]: request tickets by type to the register unit or the EEPROM unit;
//! - [`RegAccess`]: register reads and writes on a register file's port (and the error
//!   response to every type the agent does not serve);
//! - [`ActiveReport`]: fault events into fault reports;
//! - [`NmpCollector`]: responses before reports, one ticket per cycle, held in a register while
//!   the packer sends its packet;
//! - [`NmpPacker`]: response tickets in, flits out: the response built from the request's words
//!   in the store by the codec's response rule (the one place the agent builds a response),
//!   the head and CRC, on the output port the forward route's current hop names;
//! - [`NmpOutputFifo`]: packed flits waiting for the mesh, in block RAM;
//! - [`i2c_master::I2cMaster`] (with its byte stage
//!   [`i2c_command_register::I2cCommandRegister`]) and [`eep_access::EepAccess`]: the EEPROM
//!   path (1..6-byte reads and writes of a 24LC512-like part over I2C);
//! - [`EepBridge`]: EEPROM request beats into EEPROM commands, results into responses;
//! - [`EepArbiter`]: the configuration loader and the bridge sharing the EEPROM unit;
//! - [`NmaCore`]: the agent assembled from these units, between the relay-station mesh and
//!   the chip's register file and EEPROM;
//! - the relay-station (RS) blocks ([`relay_station`], [`rs_demux`], [`rs_downsizer`],
//!   [`rs_merge`], [`rs_spill`], [`rs_upsizer`], [`rs_wire`]) that carry management packets
//!   between a router's ports and its management agent (the mesh itself is `nrc::rs_mesh`).
//!
//! - the configuration loader: [`eeprom_image`] (the image format, defined once) and
//!   [`eeprom_loader::EepromLoader`] (fills registers from the EEPROM after reset) with its
//!   stages [`eeprom_reader::EepromReader`], [`record_intake::RecordIntake`] (around
//!   [`record_assembler::RecordAssembler`]), [`entry_writer::EntryWriter`] and
//!   [`loader_outcome::LoaderOutcome`];
//! - [`Nma`]: the agent as a chip instantiates it (core, loader, the agent's register block,
//!   and a port to the rest of the chip's registers): the router's `nrc::nrc_mgmt` and the
//!   NIC's `nic::nic_mgmt` wrap the same design.
pub mod active_report;
pub mod backward_append;
pub mod eep_access;
pub mod eep_arbiter;
pub mod eep_bridge;
pub mod eep_command_check;
pub mod eeprom_image;
pub mod eeprom_loader;
pub mod eeprom_reader;
pub mod entry_writer;
pub mod i2c_command_register;
pub mod i2c_master;
pub mod loader_outcome;
pub mod nma;
pub mod nma_core;
pub mod nmp_collector;
pub mod nmp_distributor;
pub mod nmp_flit_check;
pub mod nmp_output_fifo;
pub mod nmp_packer;
pub mod nmp_unpacker;
pub mod packet_store;
pub mod record_assembler;
pub mod record_intake;
pub mod reg_access;
pub mod reg_response_ticket;
pub mod regs;
pub mod relay_station;
pub mod response_flit;
pub mod rs_demux;
pub mod rs_downsizer;
pub mod rs_merge;
pub mod rs_spill;
pub mod rs_upsizer;
pub mod rs_wire;
pub mod slot_pool;
pub mod ticket;

pub use active_report::ActiveReport;
pub use eep_arbiter::EepArbiter;
pub use eep_bridge::EepBridge;
pub use nma::{Nma, NmaParams};
pub use nma_core::NmaCore;
pub use nmp_collector::NmpCollector;
pub use nmp_distributor::NmpDistributor;
pub use nmp_output_fifo::NmpOutputFifo;
pub use nmp_packer::NmpPacker;
pub use nmp_unpacker::NmpUnpacker;
pub use packet_store::PacketStore;
pub use reg_access::RegAccess;
pub use slot_pool::SlotPool;

use crate::formats::field::Field;

/// The bits of field `f` in its word.
pub const fn field_mask(f: Field) -> u64 {
    (f.max() as u64) << f.lsb
}

/// A constant of `N` bits (the one of `crate::bits`).
pub(crate) use crate::bits::constant;
