//! Management plane hardware shared by both chips (issue 12): the relay-station (RS) blocks that
//! carry management packets between a router's ports and its management agent.
pub mod relay_station;
pub mod rs_demux;
pub mod rs_downsizer;
pub mod rs_merge;
pub mod rs_spill;
pub mod rs_upsizer;
pub mod rs_wire;
