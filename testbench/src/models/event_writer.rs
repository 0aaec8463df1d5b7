//! Reference model of the NIC's event writer (`nic::events::EventWriter`): what it must decide
//! for a request, given the function table's answer, and the event rings as host memory and
//! software see them. Reused by any bench that checks completion events.
//!
//! - [`decide`]: discard (function or QP missing or disabled), pass over (ring full) or write
//!   at the ring's entry with the pass's phase.
//! - [`EventRing`]: one event ring: the NIC's producer, software's consumer, the events the
//!   writer took for it in order, and software's reading of host memory by phase, which
//!   checks that every event arrives once, whole, in order and never overwritten.
use crate::host::{RingDriver, SparseMemory};
use hdl::formats::nic::{Event, EVENT_BYTES};
use std::collections::VecDeque;

/// What the function table answers about one ring of a QP.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RingAnswer {
    /// The function and QP exist, are enabled.
    pub usable: bool,
    /// The ring's base register (its low 4 bits are ignored by the writer).
    pub base: u64,
    /// log2 of its entries.
    pub log2: u8,
    /// The NIC's producer pointer.
    pub producer: u16,
    /// Software's consumer pointer.
    pub consumer: u16,
}

/// The writer's decision on a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Taken and discarded (`dropped`).
    Discard,
    /// Passed over, not taken (`ring_full`).
    PassOver,
    /// Taken; written at this address with this phase.
    Write {
        /// The entry's address.
        address: u64,
        /// The phase bit.
        phase: bool,
    },
}

/// The decision for a request whose ring the table answered with `a`.
pub fn decide(a: &RingAnswer) -> Decision {
    if !a.usable {
        return Decision::Discard;
    }
    if a.producer.wrapping_sub(a.consumer) as u64 >= 1u64 << a.log2 {
        return Decision::PassOver;
    }
    let ring = RingDriver {
        base: a.base & !15,
        log2: a.log2,
        pointer: 0,
    };
    Decision::Write {
        address: ring.entry(a.producer, EVENT_BYTES as u64),
        phase: ring.phase_of(a.producer),
    }
}

/// One event ring as the NIC and software share it.
#[derive(Clone, Debug, Default)]
pub struct EventRing {
    /// Host address and size; `pointer` is software's consumer.
    pub driver: RingDriver,
    /// The NIC's producer (advanced by the writer's `advance`).
    pub producer: u16,
    /// Events the writer took for this ring and has not yet been read by software, in order
    /// (phase filled in when written).
    pub expected: VecDeque<Event>,
    /// Events software has read.
    pub read: u64,
}

impl EventRing {
    /// A ring at `base` of `2^log2` entries, memory cleared.
    pub fn open(mem: &mut SparseMemory, base: u64, log2: u8) -> Self {
        mem.write(base, &vec![0; EVENT_BYTES << log2]);
        Self {
            driver: RingDriver {
                base,
                log2,
                pointer: 0,
            },
            ..Default::default()
        }
    }
    /// Entries written and not yet consumed.
    pub fn fill(&self) -> u64 {
        self.producer.wrapping_sub(self.driver.pointer) as u64
    }
    /// Software reads every new event from memory (by phase), checking each against the
    /// events the writer took, in order; returns how many it read. Panics (with `what`) on a
    /// mismatch, an event read that was never taken, or an entry that is not an event.
    pub fn consume(&mut self, mem: &SparseMemory, what: &str) -> usize {
        let mut n = 0;
        loop {
            let r = self.driver;
            let a = r.entry(r.pointer, EVENT_BYTES as u64);
            let bytes: [u8; EVENT_BYTES] = mem.read(a, EVENT_BYTES).try_into().expect("16");
            if (bytes[7] >> 7 == 1) != r.phase_of(r.pointer) {
                return n;
            }
            let got = Event::from_bytes(&bytes)
                .unwrap_or_else(|e| panic!("{what}: entry {} not an event: {e:?}", r.pointer));
            let want = self.expected.pop_front().unwrap_or_else(|| {
                panic!("{what}: entry {} read, nothing written: {got:?}", r.pointer)
            });
            let want = Event {
                phase: r.phase_of(r.pointer),
                ..want
            };
            assert_eq!(got, want, "{what}: entry {}", r.pointer);
            self.driver.pointer = r.pointer.wrapping_add(1);
            self.read += 1;
            n += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_follow_the_ring_arithmetic() {
        let a = RingAnswer {
            usable: true,
            base: 0x1000 | 7,
            log2: 2,
            producer: 5,
            consumer: 2,
        };
        assert_eq!(
            decide(&a),
            Decision::Write {
                address: 0x1010,
                phase: false
            }
        );
        assert_eq!(decide(&RingAnswer { consumer: 1, ..a }), Decision::PassOver);
        assert_eq!(
            decide(&RingAnswer {
                producer: 0xFFFF,
                consumer: 0xFFFD,
                ..a
            }),
            Decision::Write {
                address: 0x1030,
                phase: false
            }
        );
        assert_eq!(
            decide(&RingAnswer { usable: false, ..a }),
            Decision::Discard
        );
        // A consumer ahead of the producer (software's bug) reads as a full ring.
        assert_eq!(decide(&RingAnswer { consumer: 9, ..a }), Decision::PassOver);
    }
}
