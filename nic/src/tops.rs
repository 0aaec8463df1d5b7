//! The NIC's emitted artefacts, beside the `hdl` and `nrc` ones (`hpcnet emit`, see
//! `src/emit.rs`): the management agent's NIC wrapper, the doorbell FIFOs, the SR-IOV function
//! table, the descriptor fetch with its tag pool, the event writer, the send engine, the receive
//! buffer, the receive side's PUT upload, NAP upload and GET to PUT, and the register maps (C headers and Markdown
//! references) that drivers and
//! management software are written against: the management space (`nic`), one function's
//! MMIO page (`nic_function`) and the PF's view of all of them (`nic_host`).
use crate::descriptor::DescriptorFetchUnit;
use crate::dma::{NicSettings, NicTopParams};
use crate::doorbell::DoorbellQueues;
use crate::events::EventWriterUnit;
use crate::function_table::FunctionTable;
use crate::nic_mgmt::NicMgmt;
use crate::receive::get_to_put::GetToPut;
use crate::receive::nap_upload_unit::{NapSettings, NapUploadUnit};
use crate::receive::put_upload::PutUpload;
use crate::receive::receive_engine::ReceiveSettings;
use crate::receive::ReceiveBuffer;
use crate::send::{SendEngine, SendSettings};
use hdl::params::Config;
use hdl::tops::{emit, Emitted};
use hdl::{with_log2, with_log2_in};

/// Entries a NIC's configuration image may hold: its settings (a NIC has no routing table).
pub const MAX_IMAGE_ENTRIES: usize = 64;

/// Every `nic` top of `cfg`, in emission order.
pub fn tops(cfg: &Config) -> Result<Vec<Emitted>, String> {
    Ok(vec![
        emit(
            NicMgmt::new(
                hdl::tops::nma_params(cfg, MAX_IMAGE_ENTRIES),
                nic_top_params(cfg).link.settings_reset(),
            ),
            "nic_mgmt",
            "the NIC's management agent: the agent design the router shares (core, I2C EEPROM, configuration loader, its register block) with one network port and the NIC's registers (verilog-out/nic.md)",
        )?,
        doorbells(cfg)?,
        function_table(cfg)?,
        descriptor_fetch(cfg)?,
        event_writer()?,
        send_engine(cfg)?,
        receive_buffer(cfg)?,
        put_upload(cfg)?,
        get_to_put(cfg)?,
        nap_upload(cfg)?,
        receive_engine(cfg)?,
        nic_core(cfg)?,
        nic_top(cfg)?,
    ])
}

/// `nic_doorbells`: the functions' doorbell FIFOs in one block RAM with their weighted
/// round-robin arbiter, at `nic.functions` x `nic.doorbell_depth`.
pub fn doorbells(cfg: &Config) -> Result<Emitted, String> {
    let (functions, depth) = (cfg.nic.functions as usize, cfg.nic.doorbell_depth as usize);
    let words = functions.next_power_of_two() * depth;
    with_log2!(words, AW, _AWP1 => emit(
        DoorbellQueues::<AW>::new(functions, depth),
        "nic_doorbells",
        "the NIC's doorbell FIFOs: one per SR-IOV function in one block RAM, overflow refused and reported, a weighted round-robin arbiter serving them (nic/src/doorbell/)",
    ))
}

/// `nic_function_table`: the SR-IOV function table with its MMIO decode, at `nic.functions`
/// x `nic.qps_per_function`.
pub fn function_table(cfg: &Config) -> Result<Emitted, String> {
    let (functions, qps) = (
        cfg.nic.functions as usize,
        cfg.nic.qps_per_function as usize,
    );
    let entries = crate::qp_table::qp_entries(functions, qps);
    with_log2_in!(entries, [1, 2, 3, 4, 5, 6, 7], QAW => emit(
        FunctionTable::<QAW>::new(functions, qps),
        "nic_function_table",
        "the NIC's SR-IOV function table: MMIO decode with the isolation rules, every function's page of registers (verilog-out/nic_host.md), the QP table in RAMs with its lookup and the NIC's ring pointers (nic/src/function_table.rs)",
    ))
}

/// Slot index bits of the emitted descriptor fetch: 4 descriptors in flight.
pub const FETCH_SLOT_BITS: usize = 2;

/// `nic_descriptor_fetch`: the descriptor fetch with its tag pool of `nic.tags` tags, reading
/// descriptors with requests of at most `nic.max_read_request` bytes, 4 in flight.
pub fn descriptor_fetch(cfg: &Config) -> Result<Emitted, String> {
    emit(
        DescriptorFetchUnit::<FETCH_SLOT_BITS, { FETCH_SLOT_BITS + 5 }>::new(
            cfg.nic.tags as usize,
            cfg.nic.max_read_request as usize,
        ),
        "nic_descriptor_fetch",
        "the NIC's descriptor fetch with the central tag pool: doorbell to QP lookup, tag and descriptor reads, completions collected by tag, the descriptor checked (Descriptor::unpack rules) and streamed out, or an error event (nic/src/descriptor/, nic/src/tag_pool.rs)",
    )
}

/// `nic_event_writer`: the completion-event writer (no elaboration values: functions and QPs
/// reach it as numbers from the requesters and the function table).
pub fn event_writer() -> Result<Emitted, String> {
    emit(
        EventWriterUnit::default(),
        "nic_event_writer",
        "the NIC's completion-event writer: round robin over the send, receive and error events, the QP's ring looked up, ring flow control (a full ring back-pressures its requester, never overwritten), one 16-byte write with the pass's phase bit, the pointer advance and the QP's interrupt (nic/src/events/)",
    )
}

/// The VCs the NIC sends on: data on VC 0, GET requests on the lowest VC that is neither the
/// data VC nor `network.mgmt_vc`. With fewer than 3 VCs (the default configuration has 2) there
/// is no such VC and GET requests share the data VC: the request/response deadlock hazard that
/// `docs/nic-design.md` ("Virtual channels") names, until the default grows to 3 VCs.
pub fn nic_vcs(cfg: &Config) -> (u8, u8) {
    let data = 0u8;
    let get = (1..cfg.network.vcs as u8)
        .find(|&v| v != data && v as u32 != cfg.network.mgmt_vc)
        .unwrap_or(data);
    (data, get)
}

/// The send engine's settings for `cfg`.
pub fn send_settings(cfg: &Config) -> SendSettings {
    let (data_vc, get_vc) = nic_vcs(cfg);
    SendSettings {
        tags: cfg.nic.tags as usize,
        max_read_request: cfg.nic.max_read_request as usize,
        mtu_bytes: cfg.nic.mtu_bytes as usize,
        max_packet_flits: cfg.network.max_packet_flits as usize,
        data_vc,
        get_vc,
    }
}

/// `nic_send`: the joined send engine (descriptor fetch with 4 slots, tag pool, data reads,
/// reorder buffer, packetizer) at the configuration's tags, read size, MTU and VCs.
pub fn send_engine(cfg: &Config) -> Result<Emitted, String> {
    emit(
        SendEngine::<FETCH_SLOT_BITS, { FETCH_SLOT_BITS + 5 }>::new(send_settings(cfg)),
        "nic_send",
        "the NIC's send engine: descriptor fetch, central tag pool, data reads sized by max read request, completions reordered into a 4 KB ring, packets cut at the MTU with header, CRC-16 and tail, send and error events (nic/src/send/)",
    )
}

/// Words of the receive buffer's packet RAM for packets of at most `max_packet_flits` flits:
/// the next power of two at or above twice that, at least 8.
pub fn packet_ram_words(max_packet_flits: usize) -> usize {
    (2 * max_packet_flits).next_power_of_two().max(8)
}

/// Words of a GET-queue slot: the longest GET body a packet of `max_packet_flits` flits
/// carries (at most `1 + 4 * MAX_SEGMENTS`), rounded up to a power of two, at least 4.
pub fn get_slot_words(max_packet_flits: usize) -> usize {
    let longest = (max_packet_flits - hdl::formats::nic::OVERHEAD_FLITS)
        .min(1 + 4 * hdl::formats::nic::MAX_SEGMENTS);
    longest.next_power_of_two().max(4)
}

/// `nic_receive_buffer`: the receive engine's buffer and checker for packets of at most
/// `network.max_packet_flits` flits, its packet RAM the next power of two at or above twice
/// that (64 words by default).
pub fn receive_buffer(cfg: &Config) -> Result<Emitted, String> {
    let max_flits = cfg.network.max_packet_flits as usize;
    let words = packet_ram_words(max_flits);
    with_log2_in!(words, [3, 4, 5, 6, 7, 8, 9], RAW => emit(
        ReceiveBuffer::<RAW, { RAW + 1 }>::new(max_flits),
        "nic_receive_buffer",
        "the NIC's receive buffer: network flits cut into packets, each checked whole (flit types, len, size, CRC-16 over head, bodies and the tail's spare bits, the NicPacket::unpack format rules, the target QP's lookup and key) before its payload words leave with its fields; a dropped packet pulses its reason, gives its words back and, for a wrong key or a disabled QP, posts an error event through a one-event slot (nic/src/receive/)",
    ))
}

/// `nic_put_upload`: the receive engine's PUT upload (checked PUT packets to posted writes cut
/// at `nic.max_payload` and 4 KB, and their completion events).
pub fn put_upload(cfg: &Config) -> Result<Emitted, String> {
    emit(
        PutUpload::new(cfg.nic.max_payload as usize),
        "nic_put_upload",
        "the NIC's PUT upload: checked PUT packets' payload words shifted into 16-byte host write beats with byte enables, writes cut at nic.max_payload and 4 KB boundaries, the receive event (or a GET response's send event) after the packet's last beat (nic/src/receive/put_upload.rs)",
    )
}

/// Slot bits of the GET queue in front of the send engine's `responses`: 8 GETs. A slot of
/// 32 64-bit words (the default) makes the queue 256 x 64 bits, which is what 4 iCE40 block
/// RAMs of 256 x 16 hold anyway (fewer slots would not save a block); the record RAM is
/// 8 x 64 bits.
pub const GET_QUEUE_SLOT_BITS: usize = 3;

/// `nic_get_to_put`: the receive engine's GET-to-PUT converter, a queue of 8 GETs whose slots
/// hold the longest GET body a packet of `network.max_packet_flits` carries (29 words by
/// default: slots of 32).
pub fn get_to_put(cfg: &Config) -> Result<Emitted, String> {
    let max_flits = cfg.network.max_packet_flits as usize;
    let slot_words = get_slot_words(max_flits);
    with_log2_in!(slot_words, [2, 3, 4, 5, 6, 7], WB => emit(
        GetToPut::<GET_QUEUE_SLOT_BITS, WB, { GET_QUEUE_SLOT_BITS + WB }, { GET_QUEUE_SLOT_BITS + 1 }>::new(max_flits),
        "nic_get_to_put",
        "the NIC's GET to PUT: checked GET packets stored whole in a queue of 8 (body rules checked, segment totals summed), each answered by a PUT descriptor (get_response) for the send engine's responses input; a bad body is dropped whole with a BadGet error event through a one-event slot (nic/src/receive/get_to_put.rs)",
    ))
}

/// The NAP upload's settings for `cfg`.
pub fn nap_settings(cfg: &Config) -> NapSettings {
    NapSettings {
        functions: cfg.nic.functions as usize,
        qps: cfg.nic.qps_per_function as usize,
        open: cfg.nic.nap_open as usize,
        timeout: cfg.nic.nap_timeout as usize,
        max_payload: cfg.nic.max_payload as usize,
    }
}

/// `nic_nap_upload`: the receive engine's NAP upload with its buffer manager (the take port
/// inside), at `nic.functions` x `nic.qps_per_function`, `nic.nap_open` open messages,
/// `nic.nap_timeout` and `nic.max_payload`.
pub fn nap_upload(cfg: &Config) -> Result<Emitted, String> {
    let s = nap_settings(cfg);
    let entries = crate::qp_table::qp_entries(s.functions, s.qps);
    with_log2_in!(entries, [1, 2, 3, 4, 5, 6, 7], EAW => emit(
        NapUploadUnit::<EAW>::new(s),
        "nic_nap_upload",
        "the NIC's NAP upload: checked NAP packets assembled into 2 KB buffers taken from the buffer manager (one cached address per QP, prefetched from its NAP-buffer ring), an open-message table for multi-packet messages with idle timeouts, 16-byte write beats cut at nic.max_payload, a receive event per message after its last beat, NoBuffer / AssemblyFull / NapIncomplete error events through a one-event slot (nic/src/receive/nap_upload.rs, buffer_manager.rs)",
    ))
}

/// The receive engine's settings for `cfg`.
pub fn receive_settings(cfg: &Config) -> ReceiveSettings {
    ReceiveSettings {
        max_packet_flits: cfg.network.max_packet_flits as usize,
        mgmt_vc: cfg.network.mgmt_vc as usize,
        max_payload: cfg.nic.max_payload as usize,
        nap: nap_settings(cfg),
    }
}

/// `nic_receive`: the receive engine joined (intake, receive buffer, dispatch, PUT upload, NAP
/// upload with its buffer manager, GET to PUT, write arbiter, lookup share) at the
/// configuration's VCs, intake buffers of `network.max_packet_flits` rounded up to a power of
/// two, the receive buffer's and GET queue's sizes as `nic_receive_buffer` and
/// `nic_get_to_put`, and the buffer manager's entries as `nic_nap_upload`.
pub fn receive_engine(cfg: &Config) -> Result<Emitted, String> {
    let s = receive_settings(cfg);
    let description = "the NIC's receive engine: network channel into whole packets per VC (management to its own port), the receive buffer's checks, dispatch by kind to the PUT upload, the NAP upload with its buffer manager and GET to PUT (PUT descriptors for the send engine), the uploads' writes merged, QP lookups shared, events on one port per source, counters' pulses (nic/src/receive/receive_engine.rs)";
    let name = "nic_receive";
    let (vcs, depth, words, entries, slot_words, _) = nic_shape(cfg);
    // Each shape is its own instantiation of a large generic block, so only the shapes of the
    // configurations in `configs/` (and the 2-function, 1-QP core of the FPGA cost table) are
    // compiled in; another shape is an error that names it.
    match (vcs, depth, words, entries, slot_words) {
        (2, 32, 6, 5, 5) => emit(<crate::receive_engine!(2, 32, 6, 5, 5)>::new(s), name, description),
        (6, 32, 6, 5, 5) => emit(<crate::receive_engine!(6, 32, 6, 5, 5)>::new(s), name, description),
        (2, 32, 6, 1, 5) => emit(<crate::receive_engine!(2, 32, 6, 1, 5)>::new(s), name, description),
        shape => Err(format!(
            "nic_receive: the shape (VCs, intake depth, log2 packet RAM words, log2 QP entries, log2 GET slot words) = {shape:?} is not instantiated: add it to nic::tops::receive_engine"
        )),
    }
}

/// The shape a configuration gives the NIC's large generic blocks, as the `match`es of
/// `receive_engine`, `nic_core` and `nic_top` compare it: (VCs, intake depth, log2 packet RAM
/// words, log2 QP entries, log2 GET slot words, log2 doorbell RAM words).
pub fn nic_shape(cfg: &Config) -> (usize, usize, usize, usize, usize, usize) {
    let s = receive_settings(cfg);
    let log2 = |v: usize| v.trailing_zeros() as usize;
    let doorbells = s.nap.functions.next_power_of_two() * cfg.nic.doorbell_depth as usize;
    (
        cfg.network.vcs as usize,
        intake_depth(cfg),
        log2(packet_ram_words(s.max_packet_flits)),
        log2(crate::qp_table::qp_entries(s.nap.functions, s.nap.qps)),
        log2(get_slot_words(s.max_packet_flits)),
        log2(doorbells),
    )
}

/// Flits per VC of the receive engine's intake buffers for `cfg`: `network.max_packet_flits`
/// rounded up to a power of two (at least 4), so each VC holds a whole packet.
pub fn intake_depth(cfg: &Config) -> usize {
    (cfg.network.max_packet_flits as usize)
        .next_power_of_two()
        .max(4)
}

/// The DMA core's settings for `cfg`. Its network channel's far receiver is taken to be
/// another NIC's intake (`intake_depth` credits per VC): `nic_top` joins a link port
/// instead, whose transmit buffer sets the credits.
pub fn nic_settings(cfg: &Config) -> NicSettings {
    NicSettings {
        send: send_settings(cfg),
        receive: receive_settings(cfg),
        doorbell_depth: cfg.nic.doorbell_depth as usize,
        channel_credits: intake_depth(cfg),
    }
}

/// `nic_core`: the NIC's DMA core joined (function table, doorbell FIFOs, send engine,
/// receive engine, event writer, lookup share, write arbiter, network steering) at the
/// configuration's shape, each part sized as its own top.
pub fn nic_core(cfg: &Config) -> Result<Emitted, String> {
    let s = nic_settings(cfg);
    let description = "the NIC's DMA core: MMIO decode and SR-IOV function table, doorbell FIFOs, send engine (descriptor fetch, tag pool, data reads, reorder, packetizer), receive engine (intake, checks, PUT and NAP uploads, buffer manager, GET to PUT), completion-event writer over seven sources, QP lookups shared, host writes merged, packets and management flits onto one credit-flow-controlled network channel (nic/src/dma/)";
    let name = "nic_core";
    // As `receive_engine`: only the shapes of `configs/` and the 2-function, 1-QP core of the
    // iCE40 cost table (`bench nic`, `testbench::nic_cost::small_config`) are compiled in.
    match nic_shape(cfg) {
        (2, 32, 6, 5, 5, 8) => emit(<crate::nic_core!(2, 32, 6, 5, 5, 8)>::new(s), name, description),
        (6, 32, 6, 5, 5, 8) => emit(<crate::nic_core!(6, 32, 6, 5, 5, 8)>::new(s), name, description),
        (2, 32, 6, 1, 5, 6) => emit(<crate::nic_core!(2, 32, 6, 1, 5, 6)>::new(s), name, description),
        shape => Err(format!(
            "nic_core: the shape (VCs, intake depth, log2 packet RAM words, log2 QP entries, log2 GET slot words, log2 doorbell words) = {shape:?} is not instantiated: add it to nic::tops::nic_core"
        )),
    }
}

/// Replay LTPs, receive and transmit buffer flits per VC of the NIC's link port: the router's
/// (`nrc::nrc_top::NrcTop5`), so both ends of a NIC-router link are alike.
pub const NIC_LINK_SHAPE: (usize, usize, usize) = (16, 256, 32);

/// The chip's elaboration values for `cfg`: the core's, a link port as a router's but whose
/// sender fills the core's intake (`credits_in` = the intake depth) and whose transmit
/// buffers the core spends (`credits_out` = `router.reserved_flits_per_vc`, at most the
/// transmit depth), and the agent's.
pub fn nic_top_params(cfg: &Config) -> NicTopParams {
    let mut link = hdl::link_port::LinkPortParams::router(cfg);
    link.credits_in = intake_depth(cfg);
    link.credits_out = link.credits_out.min(NIC_LINK_SHAPE.2);
    link.chip_type = 0; // a NIC, as the link port map's `peer` register codes it
    NicTopParams {
        core: nic_settings(cfg),
        link,
        agent: hdl::tops::nma_params(cfg, MAX_IMAGE_ENTRIES),
    }
}

/// `nic_top`: the network interface chip: `nic_core` with its network port (an LLP link port)
/// and the management agent with the NIC's registers (verilog-out/nic.md).
pub fn nic_top(cfg: &Config) -> Result<Emitted, String> {
    let p = nic_top_params(cfg);
    let description = "the network interface chip: the DMA core (nic_core) with its network port (LLP endpoint, channel sender and receiver, watchdog: the router's link port) and the management agent (EEPROM, configuration loader, the NIC's registers with the DMA core's counters) (nic/src/dma/nic_top.rs)";
    let name = "nic_top";
    match (nic_shape(cfg), cfg.link.lane_bits) {
        ((2, 32, 6, 5, 5, 8), 32) => emit(<crate::nic_top!(2, 32, 6, 5, 5, 8, 16, 256, 32)>::new(p), name, description),
        ((2, 32, 6, 5, 5, 8), 16) => emit(<crate::nic_top!(2, 32, 6, 5, 5, 8, 16, 256, 32, 16)>::new(p), name, description),
        ((6, 32, 6, 5, 5, 8), 32) => emit(<crate::nic_top!(6, 32, 6, 5, 5, 8, 16, 256, 32)>::new(p), name, description),
        (shape, lane_bits) => Err(format!(
            "nic_top: the shape (VCs, intake depth, log2 packet RAM words, log2 QP entries, log2 GET slot words, log2 doorbell words) = {shape:?} with {lane_bits}-bit lanes is not instantiated: add it to nic::tops::nic_top"
        )),
    }
}

/// The NIC's register maps for `cfg`.
pub fn regmaps(cfg: &Config) -> Result<Vec<hdl::regmap::RegMap>, String> {
    let (functions, qps) = (
        cfg.nic.functions as usize,
        cfg.nic.qps_per_function as usize,
    );
    Ok(vec![
        crate::regs::nic_map(
            hdl::mgmt::regs::NMA_FAULTS,
            nic_top_params(cfg).link.settings_reset(),
        )?,
        crate::regs::function_page_map(qps),
        crate::regs::nic_host_map(functions, qps)?,
    ])
}
