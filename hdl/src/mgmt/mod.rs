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
//!   reads and writes of a 24LC512-like part over I2C).
pub mod eep_access;
pub mod i2c_master;
pub mod nmp_packer;
pub mod nmp_unpacker;

pub use nmp_packer::NmpPacker;
pub use nmp_unpacker::NmpUnpacker;
