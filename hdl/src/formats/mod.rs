//! Formats shared by every chip: the network flit and the fabric packet header.
//!
//! Each format is defined once, as a table of [`Field`]s. The software codecs (`pack`/`unpack`),
//! the hardware field extraction ([`crate::flit_decoder::FlitDecoder`]), and the generated
//! `docs/formats.md` ([`markdown`]) all read these tables. Later issues extend the tables (new
//! control codes, new header fields in reserved bits), never replace them.
pub mod doc;
pub mod field;
pub mod flit;
pub mod header;

pub use doc::markdown;
pub use field::Field;
pub use flit::{ControlCode, Flit, FLIT_BITS, FLIT_MASK};
pub use header::{FabricHeader, PacketKind};
