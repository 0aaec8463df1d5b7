//! The `hdl` tops of a configuration: the shared link and router building blocks instantiated
//! at the configured sizes, emitted so that lint, synthesis and the FPGA flow check them as
//! they will be used; and the register maps of the configuration ([`regmaps`]), whose C
//! headers and Markdown references are emitted beside the Verilog.
//!
//! rust-hdl sizes are const generics, so a configured size picks one of the instantiations
//! with [`with_log2!`]; the configuration's rules keep the value inside the listed range.
use crate::emit::{emit_verilog, top_ports, PortInfo};
use crate::formats::FLIT_BITS;
use crate::params::Config;
use crate::regmap::RegMap;
use rust_hdl::prelude::Block;

/// One emitted top.
#[derive(Clone, Debug)]
pub struct Emitted {
    /// Top module name (also the file name).
    pub name: String,
    /// What the top is.
    pub doc: &'static str,
    /// The Verilog, without the header line.
    pub verilog: String,
    /// Top-level ports.
    pub ports: Vec<PortInfo>,
}

/// Emits `uut` as top `name`.
pub fn emit<U: Block>(mut uut: U, name: &str, doc: &'static str) -> Result<Emitted, String> {
    let verilog = emit_verilog(&mut uut, name)?;
    Ok(Emitted {
        name: name.into(),
        doc,
        verilog,
        ports: top_ports(&uut),
    })
}

/// Runs `$body` with const generics `$n` = log2(`$v`) and `$np1` = `$n` + 1 in scope, for
/// `$v` a power of two from 2 to 4096.
#[macro_export]
macro_rules! with_log2 {
    ($v:expr, $n:ident, $np1:ident => $body:expr) => {{
        macro_rules! __arm {
            ($a:literal, $b:literal) => {{
                const $n: usize = $a;
                const $np1: usize = $b;
                $body
            }};
        }
        match $v {
            2 => __arm!(1, 2),
            4 => __arm!(2, 3),
            8 => __arm!(3, 4),
            16 => __arm!(4, 5),
            32 => __arm!(5, 6),
            64 => __arm!(6, 7),
            128 => __arm!(7, 8),
            256 => __arm!(8, 9),
            512 => __arm!(9, 10),
            1024 => __arm!(10, 11),
            2048 => __arm!(11, 12),
            4096 => __arm!(12, 13),
            v => panic!("{v} is not a power of two in 2..=4096: the configuration rules should have rejected it"),
        }
    }};
}

/// Runs `$body` with const generic `$n` = log2(`$v`), for `$v` one of the powers of two
/// `1 << a` listed: a narrower [`with_log2!`] for nesting, where every listed value
/// multiplies the instantiations (and the compile time) of the body.
#[macro_export]
macro_rules! with_log2_in {
    ($v:expr, [$($a:literal),+], $n:ident => $body:expr) => {{
        match $v {
            $( x if x == 1usize << $a => {
                const $n: usize = $a;
                $body
            } )+
            v => panic!("{v} is not one of the powers of two listed: the configuration rules should have rejected it"),
        }
    }};
}

/// Runs `$body` with const generics `$n` = `$v` (1 to 8 requesters) and `$w` its index width.
#[macro_export]
macro_rules! with_count8 {
    ($v:expr, $n:ident, $w:ident => $body:expr) => {{
        macro_rules! __arm {
            ($a:literal) => {{
                const $n: usize = $a;
                const $w: usize = $crate::arb::index_width($a);
                $body
            }};
        }
        match $v {
            1 => __arm!(1),
            2 => __arm!(2),
            3 => __arm!(3),
            4 => __arm!(4),
            5 => __arm!(5),
            6 => __arm!(6),
            7 => __arm!(7),
            8 => __arm!(8),
            v => panic!("{v} is not in 1..=8: the configuration rules should have rejected it"),
        }
    }};
}

/// The link endpoint of `cfg` (`link.replay_ltps`, `link.vc_buffer_flits`, `network.vcs`,
/// `link.lanes`, `link.lane_bits`, `network.max_packet_flits`) as top `llp_endpoint`. Also what the link
/// benches simulate, so that they run exactly the emitted Verilog.
pub fn llp_endpoint(cfg: &Config) -> Result<Emitted, String> {
    let p = crate::llp::endpoint::EndpointParams::from_config(cfg);
    const DOC: &str = "one end of a link: per-VC queues, LTP transmitter with replay, lane striping; lane deframing, LTP checks, retry and lane removal, dirty-packet discard and per-VC receive buffers";
    // The arms are the configuration's ranges (replay 2..=64, buffers 4..=4096, lanes of 16 or
    // 32 bits): 132 shapes.
    with_log2_in!(cfg.link.replay_ltps as usize, [1, 2, 3, 4, 5, 6], R => {
        with_log2_in!(cfg.link.vc_buffer_flits as usize, [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], L => {
            if cfg.link.lane_bits == 16 {
                emit(<crate::llp_endpoint!(1 << R, 1 << L, 16)>::new(p), "llp_endpoint", DOC)
            } else {
                emit(<crate::llp_endpoint!(1 << R, 1 << L, 32)>::new(p), "llp_endpoint", DOC)
            }
        })
    })
}

/// Every `hdl` top of `cfg`, in emission order.
pub fn tops(cfg: &Config) -> Result<Vec<Emitted>, String> {
    use rust_hdl::prelude::Bits;
    let vcs = cfg.network.vcs as usize;
    let credits = cfg.link.vc_buffer_flits as u64;
    Ok(vec![
        emit(
            crate::flit_decoder::FlitDecoder::default(),
            "flit_decoder",
            "classifies a 65-bit flit and extracts header and control fields",
        )?,
        with_count8!(vcs, N, W => emit(
            crate::arb::StreamMux::<Bits<FLIT_BITS>, N, W>::new(true),
            "vc_flit_mux",
            "merges the per-VC flit streams of a link transmitter, whole packets at a time (network.vcs inputs)",
        ))?,
        with_log2!(cfg.link.vc_buffer_flits as usize, L, _LP1 => {
            const D: usize = 1 << L;
            emit(
                crate::fifo::StreamFifo::<Bits<FLIT_BITS>, D, { crate::fifo::fifo_ptr_bits(D) }, { crate::fifo::fifo_count_bits(D) }>::new(),
                "vc_flit_fifo",
                "one VC's receive buffer of flits (link.vc_buffer_flits deep)",
            )
        })?,
        with_log2!(cfg.link.vc_buffer_flits as usize, L, _LP1 => {
            const D: usize = 1 << L;
            emit(
                <crate::packet_buffer!(D)>::new(cfg.network.max_packet_flits as usize),
                "vc_packet_buffer",
                "one VC's receive buffer with commit/rollback: only whole good packets leave (link.vc_buffer_flits)",
            )
        })?,
        with_log2!(cfg.link.vc_buffer_flits as usize, L, _LP1 => {
            const D: usize = 1 << L;
            emit(
                <crate::rx_delivery!(32, D)>::new(vcs, cfg.network.max_packet_flits as usize),
                "rx_delivery",
                "receive delivery: LTP staging (commit/rollback), VC demultiplexer and network.vcs packet buffers of link.vc_buffer_flits",
            )
        })?,
        emit(
            crate::llp::ltp_striper::LtpStriper::new(),
            "ltp_striper",
            "LTP words (16 flits + trailer) to beats on the active lanes, rotating as in the link digest",
        )?,
        emit(
            crate::llp::deframer::LtpDeframer::new(),
            "ltp_deframer",
            "lane beats back to LTP flits, with the CRC-14 difference, sequence state and per-group CRC-8s of each LTP",
        )?,
        emit(
            crate::crc::Crc14x65::new(&crate::crc::CRC14),
            "ltp_crc14",
            "CRC-14 of an LTP, one 65-bit flit per cycle",
        )?,
        emit(
            crate::width::FlitDownsizer::new(),
            "rs_flit_downsizer",
            "a flit into 20-bit relay-station beats (4 per flit)",
        )?,
        emit(
            crate::width::FlitUpsizer::new(),
            "rs_flit_upsizer",
            "20-bit relay-station beats back into a flit",
        )?,
        emit(
            crate::mgmt::relay_station::RelayStation::<
                { crate::mgmt::relay_station::RS_BEAT_BITS },
                { crate::mgmt::relay_station::RS_PORT_BITS },
            >::new(1, false),
            "relay_station",
            "the router's relay station of one port (port 1, not the leftmost of its row): own-port and left packets merged toward the management agent, outbound packets to the port or on to the left, 20-bit beats",
        )?,
        llp_endpoint(cfg)?,
        // 13 bits hold the largest buffer the configuration allows (4096 flits).
        emit(
            crate::credit_counter::CreditCounter::<13>::new(credits),
            "vc_credit_counter",
            "sender-side credits of one VC receive buffer (link.vc_buffer_flits)",
        )?,
        regfile_sample()?,
        emit(
            crate::mgmt::NmpUnpacker::new(),
            "nmp_unpacker",
            "management agent entrance: management packets in, checked and parsed requests out (arrival port appended to the backward route), wrong-ID and malformed packets dropped and counted",
        )?,
        emit(
            crate::mgmt::NmpPacker::new(cfg.network.mgmt_vc as u8),
            "nmp_packer",
            "management agent exit: responses in, management packets out (head, CRC-16) on the port the forward route's current hop names (network.mgmt_vc)",
        )?,
        emit(
            crate::mgmt::i2c_master::I2cMaster::new(i2c_quarter(cfg), I2C_STRETCH_LIMIT),
            "i2c_master",
            "I2C master of the management agent: START/STOP/byte commands, clock stretching, bus recovery; standard mode (100 kHz) at fpga.clock_mhz",
        )?,
        emit(
            crate::mgmt::eep_access::EepAccess::new(
                i2c_quarter(cfg),
                I2C_STRETCH_LIMIT,
                EEP_POLL_LIMIT,
            ),
            "eep_access",
            "management agent EEPROM unit: 1..6-byte reads and writes of a 24LC512-like part over I2C (page split, ACK polling, error codes)",
        )?,
        emit(
            crate::mgmt::NmpDistributor::default(),
            "nmp_distributor",
            "management agent: requests by NMPType to the register unit, the EEPROM unit, or an unknown-type error response, one beat slot per output",
        )?,
        emit(
            crate::mgmt::RegAccess::<{ crate::formats::mgmt::REGISTER_ADDRESS_BITS }>::new(),
            "reg_access",
            "management agent register unit: one or two register reads or writes per request on a register file port (15-bit addresses, 64-bit data), response or error response",
        )?,
        emit(
            crate::mgmt::ActiveReport::<32>::new(),
            "active_report",
            "management agent fault reports: rising edges of 32 unmasked fault inputs while enabled, one report per batch of events, never a flood",
        )?,
        emit(
            crate::mgmt::NmpCollector::default(),
            "nmp_collector",
            "management agent collector: register, EEPROM and error responses before fault reports, fixed priority, one beat per cycle",
        )?,
        emit(
            <crate::nmp_output_fifo!(crate::mgmt::nmp_output_fifo::NMP_OUTPUT_FIFO_DEPTH)>::new(),
            "nmp_output_fifo",
            "management agent output FIFO: 2 response beats between the collector and the packer, in flip-flops",
        )?,
        nma_core(cfg)?,
        emit(
            crate::mgmt::eeprom_loader::EepromLoader::<{ crate::formats::mgmt::REGISTER_ADDRESS_BITS }>::new(
                0,
                LOADER_MAX_ENTRIES,
            ),
            "eeprom_loader",
            "configuration loader: after reset, checks the EEPROM image (magic, version, count, CRC-16 of the entries) and writes its entries to the registers (15-bit addresses, 64-bit data); blank, corrupt, absent and refused outcomes",
        )?,
        emit(
            crate::regmap::RegArbiter::<{ crate::formats::mgmt::REGISTER_ADDRESS_BITS }, 64>::new(),
            "reg_arbiter",
            "two register requesters (the first with priority) onto one register file port, responses back to their requesters in order (15-bit addresses, 64-bit data)",
        )?,
    ])
}

/// Entries the emitted configuration loader accepts in an image (40 KiB of the 64 KiB part).
pub const LOADER_MAX_ENTRIES: usize = 4096;

/// Cycles per quarter SCL period of the `nma_core` top: small, so that benches and timing
/// figures run EEPROM requests in thousands of cycles, not hundreds of thousands (the chips'
/// wrappers take standard mode from the configuration).
pub const NMA_CORE_QUARTER: u32 = 2;
/// Clock stretching tolerated by the `nma_core` top's I2C master, in quarters.
pub const NMA_CORE_STRETCH_LIMIT: u32 = 40;
/// Refused ACK polls before the `nma_core` top's EEPROM unit gives up.
pub const NMA_CORE_POLL_LIMIT: u32 = 12;
/// Fault inputs of the `nma_core` top.
pub const NMA_CORE_FAULTS: usize = 8;

/// The management agent core at the NRC's 15 register address bits and
/// [`NMA_CORE_FAULTS`] fault inputs, EEPROM timing [`NMA_CORE_QUARTER`] (see there), packets on
/// `network.mgmt_vc`, as top `nma_core`.
pub fn nma_core(cfg: &Config) -> Result<Emitted, String> {
    emit(
        crate::mgmt::NmaCore::<{ crate::formats::mgmt::REGISTER_ADDRESS_BITS }, NMA_CORE_FAULTS>::new(
            cfg.network.mgmt_vc as u8,
            NMA_CORE_QUARTER,
            NMA_CORE_STRETCH_LIMIT,
            NMA_CORE_POLL_LIMIT,
        ),
        "nma_core",
        "management agent core (15-bit register addresses, 8 fault inputs): unpacker, distributor, register unit, EEPROM bridge, arbiter and unit (I2C at 4 cycles per SCL half period, for simulation), fault reports, collector, output FIFO, packer",
    )
}

/// Quarters of SCL period a target may stretch one clock before the I2C master gives up
/// (about 2.4 ms in standard mode; the 24LC512 never stretches).
pub const I2C_STRETCH_LIMIT: u32 = 1024;
/// Refused ACK polls before `eep_access` gives up: one poll is about 50 quarters (118 us in
/// standard mode), the 24LC512's write cycle at most 5 ms, so 43 polls; 64 leave margin.
pub const EEP_POLL_LIMIT: u32 = 64;

/// Clock cycles per quarter SCL period for I2C standard mode at `fpga.clock_mhz`: 2.35 us
/// (SCL low is two quarters and tLOW is at least 4.7 us), rounded up.
pub fn i2c_quarter(cfg: &Config) -> u32 {
    (235 * cfg.fpga.clock_mhz).div_ceil(100)
}

/// The management agent's parameters for a chip built with `cfg`: packets on
/// `network.mgmt_vc`, I2C standard mode at `fpga.clock_mhz`, the configuration image at
/// EEPROM address 0 with up to `max_entries` entries.
pub fn nma_params(cfg: &Config, max_entries: usize) -> crate::mgmt::NmaParams {
    crate::mgmt::NmaParams {
        mgmt_vc: cfg.network.mgmt_vc as u8,
        quarter: i2c_quarter(cfg),
        stretch_limit: I2C_STRETCH_LIMIT,
        poll_limit: EEP_POLL_LIMIT,
        image_base: 0,
        max_entries,
    }
}

/// The register file of the sample map ([`crate::regmap::sample`]) as top `regfile_sample`:
/// 64 registers of every kind behind a 12-bit-address, 64-bit-data request port.
pub fn regfile_sample() -> Result<Emitted, String> {
    use crate::regmap::sample::{SAMPLE_ADDRESS_BITS, SAMPLE_DATA_BITS};
    emit(
        crate::regmap::RegFile::<SAMPLE_ADDRESS_BITS, SAMPLE_DATA_BITS>::new(
            &crate::regmap::regfile_sample(),
        ),
        "regfile_sample",
        "register file of the sample map regfile_sample (64 registers, 12-bit addresses, 64-bit data) that exercises the register-map machinery",
    )
}

/// Every register map of `cfg`, whose C header (`<name>.h`) and Markdown reference
/// (`<name>.md`) `hpcnet emit` writes beside the Verilog. For now the sample map only; the
/// chips' maps join as their blocks arrive.
pub fn regmaps(_cfg: &Config) -> Vec<RegMap> {
    vec![crate::regmap::regfile_sample()]
}
