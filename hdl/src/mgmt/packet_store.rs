//! Packet store: the words of the requests the agent holds, in block RAM, so its units pass
//! narrow tickets instead of whole packets ([`super::ticket`]).
//!
//! [`STORE_SLOTS`] slots of 16 entries of [`STORE_WORD_BITS`] bits: a request's words `w0..w7`
//! at entries 0..7 and its head entry (`src`, arrival port) at [`HEAD_ENTRY`](super::ticket::HEAD_ENTRY).
//!
//! Writers: `requests`, the unpacker, writing each word of a request as it arrives; `answers`,
//! the register unit, writing the registers' data for the request's `w6`/`w7` (an address whose
//! entry is [`W_DATA0`] or [`W_DATA1`]; other entries are not meant for it). The answers go to
//! a RAM of their own, two words per slot, not over the request's words: the unpacker writes
//! the next request while the register unit answers the one before (the agent overlaps them,
//! see [`NmaCore`](super::NmaCore)), and a block RAM has one write port. Both writers write at
//! most one word per cycle, in any cycle, each into its own RAM.
//!
//! Readers, each with a port of its own (a copy of the RAM written by the same writers, so no
//! reader waits for another): `packer` (the whole slot, to send the response: the request's
//! words, except entries `w6`/`w7`, which are the answers'), `registers` (the register unit:
//! `w6`/`w7`, the write data) and `eeprom` (the EEPROM unit: the bytes of `w6`, [`EEP_DATA_BITS`]
//! of them). A read is registered: the word at `address` in cycle `c` is on `data` in `c + 1`
//! (and stays while `address` stays and the word is not written). The packer reads `w6`/`w7`
//! only for a response whose ticket says the register unit stored them, so it never needs the
//! request's own `w6`/`w7`.
//!
//! A read of the word an enabled write writes in the same cycle reads the neighbouring entry
//! instead (address bit 0 flipped); the agent never does that for a word it uses (the unit
//! reading a slot's words holds that slot's request, which nobody writes). The flip lets Yosys
//! prove that the read and write addresses of an enabled write differ and map bare block RAMs:
//! rust-hdl's RAM reads before it writes, which iCE40 block RAMs do not promise, and the
//! emulation would cost a register and a LUT per bit.
//!
//! Cost: block RAMs only (iCE40: four for each 64-bit copy and for the answers, three for the
//! 48-bit copy, 15 in all) and one flip-flop (which RAM the packer's word comes from), no
//! reset (contents are meaningful only under a ticket).
use super::constant;
use super::eep_access::EEP_DATA_BITS;
use super::ticket::{ENTRY_BITS, SLOT_BITS, STORE_ADDRESS_BITS, STORE_WORD_BITS};
use crate::formats::mgmt::{W_DATA0, W_DATA1};
use rust_hdl::prelude::*;

/// A writer's side of a store write port.
#[derive(LogicInterface, Default)]
#[join = "StoreWriteSink"]
pub struct StoreWriteSource {
    /// Write `data` at `address` on this edge.
    pub enable: Signal<Out, bool>,
    /// Where.
    pub address: Signal<Out, Bits<STORE_ADDRESS_BITS>>,
    /// What.
    pub data: Signal<Out, Bits<STORE_WORD_BITS>>,
}

/// The store's side of a write port.
#[derive(LogicInterface, Default)]
#[join = "StoreWriteSource"]
pub struct StoreWriteSink {
    /// Write `data` at `address` on this edge.
    pub enable: Signal<In, bool>,
    /// Where.
    pub address: Signal<In, Bits<STORE_ADDRESS_BITS>>,
    /// What.
    pub data: Signal<In, Bits<STORE_WORD_BITS>>,
}

/// A reader's side of a store read port (`D` data bits).
#[derive(LogicInterface, Default)]
#[join = "StoreReadPort"]
pub struct StoreReader<const D: usize> {
    /// The entry to read (its word is on `data` the next cycle).
    pub address: Signal<Out, Bits<STORE_ADDRESS_BITS>>,
    /// The word read at the previous edge.
    pub data: Signal<In, Bits<D>>,
}

/// The store's side of a read port.
#[derive(LogicInterface, Default)]
#[join = "StoreReader"]
pub struct StoreReadPort<const D: usize> {
    /// The entry to read.
    pub address: Signal<In, Bits<STORE_ADDRESS_BITS>>,
    /// The word read at the previous edge.
    pub data: Signal<Out, Bits<D>>,
}

/// Bits of an address in the answers' RAM: the slot above the word (`w6` 0, `w7` 1).
pub const ANSWER_ADDRESS_BITS: usize = SLOT_BITS + 1;

/// The packet store; see the module documentation.
#[derive(LogicBlock)]
pub struct PacketStore {
    /// Clock of the RAMs.
    pub clock: Signal<In, Clock>,
    /// The unpacker's writes (every copy).
    pub requests: StoreWriteSink,
    /// The register unit's writes (the answers' RAM: entries `w6`/`w7` only).
    pub answers: StoreWriteSink,
    /// The packer's reads.
    pub packer: StoreReadPort<STORE_WORD_BITS>,
    /// The register unit's reads.
    pub registers: StoreReadPort<STORE_WORD_BITS>,
    /// The EEPROM unit's reads.
    pub eeprom: StoreReadPort<EEP_DATA_BITS>,
    packer_ram: RAM<Bits<STORE_WORD_BITS>, STORE_ADDRESS_BITS>,
    answer_ram: RAM<Bits<STORE_WORD_BITS>, ANSWER_ADDRESS_BITS>,
    registers_ram: RAM<Bits<STORE_WORD_BITS>, STORE_ADDRESS_BITS>,
    eeprom_ram: RAM<Bits<EEP_DATA_BITS>, STORE_ADDRESS_BITS>,
    /// The answers' write address: the slot and the word.
    answer_write_address: Signal<Local, Bits<ANSWER_ADDRESS_BITS>>,
    /// The packer's read address in the answers' RAM.
    answer_read_address: Signal<Local, Bits<ANSWER_ADDRESS_BITS>>,
    /// The packer's read is of `w6` or `w7`: its word comes from the answers' RAM.
    packer_reads_answer: Signal<Local, bool>,
    /// `packer_reads_answer` of the read on `packer.data`.
    answer_on_data: DFF<bool>,
    /// Entry bits of the packer's read address above bit 0.
    packer_entry_pair: Signal<Local, Bits<ENTRY_BITS>>,
    /// `w6`'s entry (`w7` is the next).
    answer_entry: Constant<Bits<ENTRY_BITS>>,
    /// The slot's place in an address.
    slot_lsb: Constant<Bits<8>>,
    /// An entry without its bit 0.
    pair_mask: Constant<Bits<ENTRY_BITS>>,
    /// Address bit 0.
    bit0: Constant<Bits<STORE_ADDRESS_BITS>>,
    /// Answer address bit 0.
    answer_bit0: Constant<Bits<ANSWER_ADDRESS_BITS>>,
}

impl Default for PacketStore {
    fn default() -> Self {
        const {
            assert!(W_DATA1 == W_DATA0 + 1 && W_DATA0 & 1 == 0);
        }
        Self {
            clock: Default::default(),
            requests: Default::default(),
            answers: Default::default(),
            packer: Default::default(),
            registers: Default::default(),
            eeprom: Default::default(),
            packer_ram: Default::default(),
            answer_ram: Default::default(),
            registers_ram: Default::default(),
            eeprom_ram: Default::default(),
            answer_write_address: Default::default(),
            answer_read_address: Default::default(),
            packer_reads_answer: Default::default(),
            answer_on_data: Default::default(),
            packer_entry_pair: Default::default(),
            answer_entry: constant(W_DATA0 as u64),
            slot_lsb: constant(ENTRY_BITS as u64),
            pair_mask: constant(((1 << ENTRY_BITS) - 2) as u64),
            bit0: constant(1),
            answer_bit0: constant(1),
        }
    }
}

impl Logic for PacketStore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, answer_on_data);
        self.packer_ram.read_clock.next = self.clock.val();
        self.packer_ram.write_clock.next = self.clock.val();
        self.answer_ram.read_clock.next = self.clock.val();
        self.answer_ram.write_clock.next = self.clock.val();
        self.registers_ram.read_clock.next = self.clock.val();
        self.registers_ram.write_clock.next = self.clock.val();
        self.eeprom_ram.read_clock.next = self.clock.val();
        self.eeprom_ram.write_clock.next = self.clock.val();
        // The request copies: the unpacker's words.
        self.packer_ram.write_enable.next = self.requests.enable.val();
        self.packer_ram.write_address.next = self.requests.address.val();
        self.packer_ram.write_data.next = self.requests.data.val();
        self.registers_ram.write_enable.next = self.requests.enable.val();
        self.registers_ram.write_address.next = self.requests.address.val();
        self.registers_ram.write_data.next = self.requests.data.val();
        self.eeprom_ram.write_enable.next = self.requests.enable.val();
        self.eeprom_ram.write_address.next = self.requests.address.val();
        self.eeprom_ram.write_data.next = self.requests.data.val().get_bits::<EEP_DATA_BITS>(0);
        // The answers: the slot and the word's low bit.
        self.answer_write_address.next = (bit_cast::<ANSWER_ADDRESS_BITS, SLOT_BITS>(
            self.answers
                .address
                .val()
                .get_bits::<SLOT_BITS>(self.slot_lsb.val().index()),
        ) << 1)
            | bit_cast::<ANSWER_ADDRESS_BITS, 1>(self.answers.address.val().get_bits::<1>(0));
        self.answer_ram.write_enable.next = self.answers.enable.val();
        self.answer_ram.write_address.next = self.answer_write_address.val();
        self.answer_ram.write_data.next = self.answers.data.val();
        // Reads, each dodging the word written in the same cycle (bit 0 flipped).
        self.packer_ram.read_address.next = self.packer.address.val();
        if self.requests.enable.val() & (self.packer.address.val() == self.requests.address.val()) {
            self.packer_ram.read_address.next = self.packer.address.val() ^ self.bit0.val();
        }
        self.answer_read_address.next = (bit_cast::<ANSWER_ADDRESS_BITS, SLOT_BITS>(
            self.packer
                .address
                .val()
                .get_bits::<SLOT_BITS>(self.slot_lsb.val().index()),
        ) << 1)
            | bit_cast::<ANSWER_ADDRESS_BITS, 1>(self.packer.address.val().get_bits::<1>(0));
        self.answer_ram.read_address.next = self.answer_read_address.val();
        if self.answers.enable.val()
            & (self.answer_read_address.val() == self.answer_write_address.val())
        {
            self.answer_ram.read_address.next =
                self.answer_read_address.val() ^ self.answer_bit0.val();
        }
        self.packer_entry_pair.next =
            self.packer.address.val().get_bits::<ENTRY_BITS>(0) & self.pair_mask.val();
        self.packer_reads_answer.next = self.packer_entry_pair.val() == self.answer_entry.val();
        self.answer_on_data.d.next = self.packer_reads_answer.val();
        self.registers_ram.read_address.next = self.registers.address.val();
        if self.requests.enable.val()
            & (self.registers.address.val() == self.requests.address.val())
        {
            self.registers_ram.read_address.next = self.registers.address.val() ^ self.bit0.val();
        }
        self.eeprom_ram.read_address.next = self.eeprom.address.val();
        if self.requests.enable.val() & (self.eeprom.address.val() == self.requests.address.val()) {
            self.eeprom_ram.read_address.next = self.eeprom.address.val() ^ self.bit0.val();
        }
        self.packer.data.next = self.packer_ram.read_data.val();
        if self.answer_on_data.q.val() {
            self.packer.data.next = self.answer_ram.read_data.val();
        }
        self.registers.data.next = self.registers_ram.read_data.val();
        self.eeprom.data.next = self.eeprom_ram.read_data.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_store_is_synthesizable() {
        let mut uut = PacketStore::default();
        uut.connect_all();
        yosys_validate("packet_store", &generate_verilog(&uut)).unwrap();
    }

    /// The read-address dodge must let Yosys map bare block RAMs (no read-during-write
    /// emulation, which would add a flip-flop and a LUT per bit).
    #[test]
    fn packet_store_maps_to_bare_block_rams() {
        let mut uut = PacketStore::default();
        uut.connect_all();
        let dir = std::env::temp_dir().join(format!("hpcnet_packet_store_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("top.v");
        std::fs::write(&file, generate_verilog(&uut)).unwrap();
        let out = std::process::Command::new("yosys")
            .arg("-p")
            .arg("synth_ice40 -top top; stat")
            .arg(&file)
            .output()
            .expect("run yosys");
        let _ = std::fs::remove_dir_all(&dir);
        let log = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "yosys failed:\n{log}");
        let stat = &log[log.rfind("Number of cells").expect("stat output")..];
        let cells = |prefix: &str| -> u64 {
            stat.lines()
                .filter_map(|l| {
                    let mut w = l.split_whitespace();
                    match (w.next(), w.next()) {
                        (Some(c), Some(n)) if c.starts_with(prefix) => n.parse::<u64>().ok(),
                        _ => None,
                    }
                })
                .sum()
        };
        assert_eq!(cells("SB_RAM40_4K"), 15, "4 + 4 + 4 + 3 block RAMs");
        assert_eq!(
            cells("SB_DFF"),
            1,
            "no emulation registers: one for the answer choice"
        );
        assert!(cells("SB_LUT4") <= 100, "{} LUTs", cells("SB_LUT4"));
    }
}
