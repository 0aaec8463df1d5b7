//! Formats shared by every chip: the network flit, the fabric packet header, the management
//! packet, and the NIC's network packet, descriptors, doorbell and completion events.
//!
//! Each format is defined once, as a table of [`Field`]s. The software codecs (`pack`/`unpack`),
//! the hardware field extraction ([`crate::flit_decoder::FlitDecoder`]), and the generated
//! `docs/formats.md` ([`markdown`]) all read these tables. Later issues extend the tables (new
//! control codes, new header fields in reserved bits), never replace them.
pub mod doc;
pub mod field;
pub mod flit;
pub mod header;
pub mod mgmt;
pub mod nic;

pub use doc::markdown;
pub use field::Field;
pub use flit::{ControlCode, Flit, FLIT_BITS, FLIT_MASK};
pub use header::{FabricHeader, PacketKind};
pub use mgmt::{MgmtBeat, MgmtError, MgmtPacket, MgmtPayload, NmpType, Route, MGMT_FLITS};
