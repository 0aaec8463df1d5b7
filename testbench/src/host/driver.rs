//! The driver side of the NIC, as software would run it: per function and QP, rings in host
//! memory (send completions, receive completions, NAP buffers) with their pointers, QPMagic
//! keys, descriptors written into host memory and doorbells rung through MMIO, events read
//! back from the rings, interrupts counted.
//!
//! Every register offset comes from the NIC's register maps (`nic::regs`), by name: the model
//! is written against the generated C header's data, not against numbers. The model produces
//! [`MmioAccess`]es for an [`MmioHost`](super::MmioHost) to issue; it reads and writes host
//! memory directly (a [`SparseMemory`], the one the host memory model serves).
//!
//! Rings: an event ring of `2^n` 16-byte entries, aligned to its size; the NIC writes entry
//! `p mod 2^n` with the phase bit of pass `p >> n` (1 on even passes, 0 on odd: the first
//! pass after reset is 1), so software reads an entry as new when its phase is the one its
//! own pointer expects, and tells the NIC how far it has read by writing its consumer pointer.
//! The NAP-buffer ring holds `2^n` 8-byte addresses of 2 KB-aligned, 2 KB buffers; software
//! posts buffers by writing them and advancing the producer pointer.
use super::memory::SparseMemory;
use super::mmio::MmioAccess;
use hdl::formats::nic::{Descriptor, Doorbell, Event, EVENT_BYTES, NAP_MAX_BYTES};
use hdl::regmap::RegMap;
use nic::regs::{function_page_map, nic_global_map, page_registers, Ring};
use std::collections::HashMap;

/// Bytes per register in a BAR.
pub const REGISTER_BYTES: u64 = 8;
/// Bytes of a NAP-buffer ring entry.
pub const NAP_ENTRY_BYTES: u64 = 8;

/// One ring as the driver keeps it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RingDriver {
    /// Host address (aligned to the ring's bytes).
    pub base: u64,
    /// log2 of its entries.
    pub log2: u8,
    /// Software's pointer: the consumer of an event ring, the producer of the NAP ring.
    pub pointer: u16,
}

impl RingDriver {
    /// Entries.
    pub fn entries(&self) -> u64 {
        1 << self.log2
    }
    /// The phase bit of an event written at free-running pointer `p`.
    pub fn phase_of(&self, p: u16) -> bool {
        (p >> self.log2) & 1 == 0
    }
    /// Address of the entry at free-running pointer `p` for entries of `bytes`.
    pub fn entry(&self, p: u16, bytes: u64) -> u64 {
        self.base + (p as u64 % self.entries()) * bytes
    }
}

/// One QP as the driver keeps it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QpDriver {
    /// Its key (QPMagic).
    pub key: u32,
    /// Opened (key set and enabled by the PF).
    pub enabled: bool,
    /// Send-completion, receive-completion and NAP-buffer rings.
    pub rings: [RingDriver; 3],
    /// NAP buffers posted, by ring index (pointer mod entries).
    pub buffers: HashMap<u64, u64>,
}

/// The driver model; see the module documentation.
pub struct DriverModel {
    /// Functions.
    pub functions: usize,
    /// QPs per function.
    pub qps: usize,
    /// A function page's registers by name.
    pub page: RegMap,
    /// Bytes of a page (a VF's BAR).
    pub page_bytes: u64,
    /// Per function: enabled.
    pub enabled: Vec<bool>,
    /// `[function][qp]`.
    pub qp: Vec<Vec<QpDriver>>,
    /// Interrupts seen per function and vector.
    pub interrupts: HashMap<(u8, u8), u64>,
    /// Next free host address of the bump allocator.
    next_free: u64,
}

impl DriverModel {
    /// A driver of `functions` functions of `qps` QPs, allocating host memory from
    /// `heap_base` upwards.
    pub fn new(functions: usize, qps: usize, heap_base: u64) -> Self {
        Self {
            functions,
            qps,
            page: function_page_map(qps),
            page_bytes: page_registers(qps) * REGISTER_BYTES,
            enabled: vec![false; functions],
            qp: (0..functions)
                .map(|_| (0..qps).map(|_| QpDriver::default()).collect())
                .collect(),
            interrupts: HashMap::new(),
            next_free: heap_base,
        }
    }

    /// `bytes` of host memory aligned to `align` (a power of two).
    pub fn alloc(&mut self, bytes: u64, align: u64) -> u64 {
        let a = self.next_free.div_ceil(align) * align;
        self.next_free = a + bytes;
        a
    }

    /// Byte offset of register `name` in a page.
    pub fn offset(&self, name: &str) -> u64 {
        self.page
            .get(name)
            .unwrap_or_else(|| panic!("the function page has no register {name}"))
            .offset
            * REGISTER_BYTES
    }

    /// Byte offset in the PF's BAR of function `f`'s register `name`.
    pub fn pf_offset(&self, f: usize, name: &str) -> u64 {
        f as u64 * self.page_bytes + self.offset(name)
    }

    /// Byte offset in the PF's BAR of global register `name`.
    pub fn global_offset(&self, name: &str) -> u64 {
        let g = nic_global_map();
        let r = g
            .get(name)
            .unwrap_or_else(|| panic!("no global register {name}"));
        (self.functions as u64 * self.page_bytes / REGISTER_BYTES + r.offset) * REGISTER_BYTES
    }

    /// Function `f` writes its own register `name`.
    pub fn own_write(&self, f: usize, name: &str, value: u64) -> MmioAccess {
        MmioAccess::write(f as u8, self.offset(name), value)
    }

    /// The PF writes function `f`'s register `name`.
    pub fn pf_write(&self, f: usize, name: &str, value: u64) -> MmioAccess {
        MmioAccess::write(0, self.pf_offset(f, name), value)
    }

    /// The PF writes `value` to the global register `name` (after the last function page).
    pub fn pf_global_write(&self, name: &str, value: u64) -> MmioAccess {
        MmioAccess::write(0, self.global_offset(name), value)
    }

    /// The PF enables (or disables) function `f`.
    pub fn enable_function(&mut self, f: usize, on: bool) -> Vec<MmioAccess> {
        self.enabled[f] = on;
        vec![self.pf_write(f, "enable", on as u64)]
    }

    /// Opens QP `q` of function `f` with `key`: rings of `2^log2` entries each are allocated,
    /// the function writes their registers, the PF sets the key and enables the QP, and
    /// `2^log2` NAP buffers are posted. Returns the MMIO writes in order.
    pub fn open_qp(
        &mut self,
        mem: &mut SparseMemory,
        f: usize,
        q: usize,
        key: u32,
        log2: u8,
    ) -> Vec<MmioAccess> {
        let mut out = vec![];
        for (i, ring) in Ring::ALL.into_iter().enumerate() {
            let entry = if ring.nic_produces() {
                EVENT_BYTES as u64
            } else {
                NAP_ENTRY_BYTES
            };
            let bytes = entry << log2;
            let base = self.alloc(bytes, bytes.max(64));
            // Stale memory must not look like events of the first pass.
            mem.write(base, &vec![0; bytes as usize]);
            let n = ring.prefix();
            self.qp[f][q].rings[i] = RingDriver {
                base,
                log2,
                pointer: 0,
            };
            out.push(self.own_write(f, &format!("qp{q}_{n}_base"), base));
            out.push(self.own_write(f, &format!("qp{q}_{n}_size"), log2 as u64));
            let sw = if ring.nic_produces() {
                "consumer"
            } else {
                "producer"
            };
            out.push(self.own_write(f, &format!("qp{q}_{n}_{sw}"), 0));
        }
        self.qp[f][q].key = key;
        self.qp[f][q].enabled = true;
        out.push(self.pf_write(f, &format!("qp{q}_key"), key as u64 | 1 << 32));
        out.extend(self.post_nap_buffers(mem, f, q, 1 << log2));
        out
    }

    /// Posts `n` NAP buffers of 2 KB to QP `q` of function `f` (never more than the ring
    /// holds beyond what the NIC has taken: the caller keeps to it); returns the producer write.
    pub fn post_nap_buffers(
        &mut self,
        mem: &mut SparseMemory,
        f: usize,
        q: usize,
        n: usize,
    ) -> Vec<MmioAccess> {
        let nap = Ring::NapBuffers as usize;
        for _ in 0..n {
            let buf = self.alloc(NAP_MAX_BYTES as u64, NAP_MAX_BYTES as u64);
            let r = self.qp[f][q].rings[nap];
            mem.write_word(r.entry(r.pointer, NAP_ENTRY_BYTES), buf);
            self.qp[f][q]
                .buffers
                .insert(r.pointer as u64 % r.entries(), buf);
            self.qp[f][q].rings[nap].pointer = r.pointer.wrapping_add(1);
        }
        let p = self.qp[f][q].rings[nap].pointer;
        vec![self.own_write(f, &format!("qp{q}_nbr_producer"), p as u64)]
    }

    /// Writes `d` into host memory for QP `q` of function `f` and returns the doorbell write
    /// (function `f` writing its own `doorbell` register).
    pub fn post_descriptor(
        &mut self,
        mem: &mut SparseMemory,
        f: usize,
        q: usize,
        d: &Descriptor,
    ) -> MmioAccess {
        let words = d.pack();
        let address = self.alloc(8 * words.len() as u64, 64);
        for (i, &w) in words.iter().enumerate() {
            mem.write_word(address + 8 * i as u64, w);
        }
        let bell = Doorbell {
            qp: q as u8,
            words: words.len() as u8,
            address,
        };
        self.own_write(f, "doorbell", bell.pack())
    }

    /// The new events of `ring` (send or receive completions) of QP `q` of function `f`, read
    /// from host memory while their phase is the expected one, and the consumer write that
    /// hands their entries back (none if there were no new events). Panics on an entry that is
    /// not a valid event.
    pub fn take_events(
        &mut self,
        mem: &SparseMemory,
        f: usize,
        q: usize,
        ring: Ring,
    ) -> (Vec<Event>, Option<MmioAccess>) {
        assert!(ring.nic_produces(), "{ring:?} holds no events");
        let i = ring as usize;
        let mut out = vec![];
        loop {
            let r = self.qp[f][q].rings[i];
            let a = r.entry(r.pointer, EVENT_BYTES as u64);
            let bytes: [u8; EVENT_BYTES] = mem.read(a, EVENT_BYTES).try_into().expect("16");
            let phase = bytes[7] >> 7 == 1;
            if phase != r.phase_of(r.pointer) {
                break;
            }
            let e = Event::from_bytes(&bytes).unwrap_or_else(|e| {
                panic!("function {f} QP {q} {ring:?} entry {}: {e:?}", r.pointer)
            });
            out.push(e);
            self.qp[f][q].rings[i].pointer = r.pointer.wrapping_add(1);
            if out.len() as u64 >= r.entries() {
                break;
            }
        }
        let write = (!out.is_empty()).then(|| {
            let p = self.qp[f][q].rings[i].pointer;
            self.own_write(f, &format!("qp{q}_{}_consumer", ring.prefix()), p as u64)
        });
        (out, write)
    }

    /// Counts an interrupt of function `f`, vector `v`.
    pub fn interrupt(&mut self, f: u8, v: u8) {
        *self.interrupts.entry((f, v)).or_default() += 1;
    }
}

/// What a NIC writes for one event at its free-running producer pointer `p` of `ring`: the
/// reference for event-writer benches (and the driver model's own tests).
pub fn nic_event_write(mem: &mut SparseMemory, ring: &RingDriver, p: u16, e: Event) {
    let e = Event {
        phase: ring.phase_of(p),
        ..e
    };
    mem.write(ring.entry(p, EVENT_BYTES as u64), &e.to_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdl::formats::nic::{DescriptorBody, EventKind, EventStatus};

    fn event(info: u32) -> Event {
        Event {
            kind: EventKind::Send,
            status: EventStatus::Ok,
            op: 1,
            qp: 0,
            peer_node: 1,
            peer_function: 2,
            peer_qp: 3,
            length: 64,
            info,
            phase: false,
        }
    }

    #[test]
    fn offsets_come_from_the_maps() {
        let d = DriverModel::new(8, 4, 0x10_0000);
        assert_eq!(d.offset("doorbell"), 0);
        assert_eq!(d.offset("qp1_key"), 0x20 * 8);
        assert_eq!(d.page_bytes, 128 * 8);
        assert_eq!(d.pf_offset(3, "enable"), 3 * 1024 + 8);
        assert_eq!(d.global_offset("arb_mode"), 8 * 1024);
    }

    #[test]
    fn qps_open_with_rings_keys_and_buffers() {
        let mut mem = SparseMemory::default();
        let mut d = DriverModel::new(2, 2, 0x10_0000);
        let w = d.open_qp(&mut mem, 1, 1, 0xabcd, 3);
        // Function 1 writes its own ring registers; the PF writes the key.
        assert!(w.iter().filter(|a| a.function == 1).count() >= 9);
        let key = w.iter().find(|a| a.function == 0).unwrap();
        assert_eq!(key.offset, d.pf_offset(1, "qp1_key"));
        assert_eq!(key.data, 0xabcd | 1 << 32);
        let q = &d.qp[1][1];
        for r in q.rings {
            assert_eq!(r.base % (r.entries() * 8), 0, "aligned to its size");
        }
        assert_eq!(q.rings[2].pointer, 8, "eight buffers posted");
        for i in 0..8 {
            let buf = mem.word(q.rings[2].entry(i, 8));
            assert_eq!(buf % 2048, 0);
            assert_eq!(q.buffers[&(i as u64)], buf);
        }
        assert_eq!(w.last().unwrap().offset, d.offset("qp1_nbr_producer"));
    }

    #[test]
    fn descriptors_land_in_memory_behind_their_doorbell() {
        let mut mem = SparseMemory::default();
        let mut d = DriverModel::new(2, 4, 0x10_0000);
        let desc = Descriptor {
            dst_node: 3,
            dst_function: 1,
            dst_qp: 2,
            remote_event: false,
            local_event: true,
            qp_magic: 7,
            tag: 99,
            body: DescriptorBody::NapImmediate(vec![1, 2, 3, 4, 5, 6, 7, 8, 9]),
        };
        let bell = d.post_descriptor(&mut mem, 1, 2, &desc);
        assert_eq!((bell.function, bell.offset, bell.write), (1, 0, true));
        let b = Doorbell::unpack(bell.data).unwrap();
        assert_eq!(b.qp, 2);
        let words: Vec<u64> = (0..b.words as u64)
            .map(|i| mem.word(b.address + 8 * i))
            .collect();
        assert_eq!(Descriptor::unpack(&words), Ok(desc));
    }

    #[test]
    fn events_are_read_by_phase_across_wraps() {
        let mut mem = SparseMemory::default();
        let mut d = DriverModel::new(1, 1, 0x10_0000);
        d.open_qp(&mut mem, 0, 0, 1, 2);
        let ring = d.qp[0][0].rings[0];
        let mut p = 0u16;
        let mut seen = vec![];
        for round in 0..5u32 {
            for k in 0..3 {
                nic_event_write(&mut mem, &ring, p, event(round * 10 + k));
                p += 1;
            }
            let (ev, w) = d.take_events(&mem, 0, 0, Ring::SendCompletion);
            assert_eq!(ev.len(), 3, "round {round}");
            assert_eq!(w.unwrap().data, p as u64);
            seen.extend(ev.iter().map(|e| e.info));
            let (none, w) = d.take_events(&mem, 0, 0, Ring::SendCompletion);
            assert!(none.is_empty() && w.is_none(), "old entries are not new");
        }
        let want: Vec<u32> = (0..5)
            .flat_map(|r| (0..3).map(move |k| r * 10 + k))
            .collect();
        assert_eq!(seen, want);
    }
}
