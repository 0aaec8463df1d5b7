//! The network management agent (NMA): the one design inside every NIC and NRC that receives
//! management packets ([`crate::formats::mgmt`]), carries out their register and EEPROM
//! requests, and sends responses and fault reports back along their backward routes.
//!
//! Its units pass each packet along as one [`MgmtBeat`](crate::formats::mgmt::MgmtBeat) of
//! [`MGMT_BEAT_BITS`](crate::formats::mgmt::MGMT_BEAT_BITS) bits on a
//! [`StreamSource`](crate::stream::StreamSource)/[`StreamSink`](crate::stream::StreamSink) pair:
//! - [`NmpUnpacker`]: flits in, checked and parsed beats out (the arrival port appended to the
//!   backward route), wrong-ID and malformed packets dropped and counted;
//! - [`NmpPacker`]: response beats in, flits out with the head and CRC built, on the output port
//!   the forward route's current hop names;
//! - [`i2c_master::I2cMaster`] and [`eep_access::EepAccess`]: the EEPROM path (1..6-byte
//!   reads and writes of a 24LC512-like part over I2C);
//! - the relay-station (RS) blocks ([`relay_station`], [`rs_demux`], [`rs_downsizer`],
//!   [`rs_merge`], [`rs_spill`], [`rs_upsizer`], [`rs_wire`]) that carry management packets
//!   between a router's ports and its management agent (the mesh itself is `nrc::rs_mesh`).
pub mod eep_access;
pub mod i2c_master;
pub mod nmp_packer;
pub mod nmp_unpacker;
pub mod relay_station;
pub mod rs_demux;
pub mod rs_downsizer;
pub mod rs_merge;
pub mod rs_spill;
pub mod rs_upsizer;
pub mod rs_wire;

pub use nmp_packer::NmpPacker;
pub use nmp_unpacker::NmpUnpacker;
