//! Reference model of `EepromLoader`'s outcome, written from its documentation: what the
//! part holds decides blank, corrupt or loaded ([`EepromImage::parse`], the format's own
//! reference), an absent part is absent, and a loaded image's entries are written in order,
//! those the register file (or the port's address width) refuses counted.
use crate::models::reg_file::{RegFileModel, Request};
use hdl::mgmt::eeprom_image::{EepromImage, ImageEntry, ImageError};
use hdl::mgmt::eeprom_loader::LoaderStatus;
use hdl::regmap::{Access, RegError, RegMap};

/// How a run ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoadOutcome {
    /// The image was applied.
    Loaded,
    /// No image.
    Blank,
    /// A bad image.
    Corrupt,
    /// The part does not answer.
    Absent,
}

impl LoadOutcome {
    /// Its `status` bit.
    pub fn status(self) -> LoaderStatus {
        match self {
            LoadOutcome::Loaded => LoaderStatus::Loaded,
            LoadOutcome::Blank => LoaderStatus::Blank,
            LoadOutcome::Corrupt => LoaderStatus::Corrupt,
            LoadOutcome::Absent => LoaderStatus::Absent,
        }
    }
}

/// What a run must do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectedLoad {
    /// The outcome.
    pub outcome: LoadOutcome,
    /// Why the image was refused, if it was.
    pub reason: Option<ImageError>,
    /// The entries written, in order (the register file accepted them).
    pub written: Vec<ImageEntry>,
    /// Entries refused.
    pub refused: u64,
}

impl ExpectedLoad {
    /// The loader's `status` once done.
    pub fn status(&self) -> u64 {
        let mut s = self.outcome.status().mask();
        if self.refused > 0 {
            s |= LoaderStatus::Refused.mask();
        }
        s
    }
}

/// The run of a loader with `address_bits`-bit register addresses, `max_entries`, reading the
/// image at `base` of `memory` (the part's 64 KiB) if the part is `present`, in front of a
/// register file of `map`.
pub fn expected_load(
    memory: &[u8],
    base: usize,
    max_entries: usize,
    present: bool,
    address_bits: usize,
    map: &RegMap,
) -> ExpectedLoad {
    let refuse = |outcome, reason| ExpectedLoad {
        outcome,
        reason,
        written: vec![],
        refused: 0,
    };
    if !present {
        return refuse(LoadOutcome::Absent, None);
    }
    match EepromImage::parse(&memory[base..], max_entries) {
        Err(e) if e.is_blank() => refuse(LoadOutcome::Blank, Some(e)),
        Err(e) => refuse(LoadOutcome::Corrupt, Some(e)),
        Ok(image) => {
            let mut written = vec![];
            let mut refused = 0;
            for e in image.entries {
                let ok = (e.address as u64) >> address_bits == 0
                    && map
                        .registers
                        .iter()
                        .any(|r| r.offset == e.address as u64 && r.access != Access::ReadOnly);
                if ok {
                    written.push(e);
                } else {
                    refused += 1;
                }
            }
            ExpectedLoad {
                outcome: LoadOutcome::Loaded,
                reason: None,
                written,
                refused,
            }
        }
    }
}

/// `model` after the register writes `entries`, in order, with no hardware activity (flags
/// and events idle), as the register file takes them.
pub fn apply_writes(model: &mut RegFileModel, entries: &[ImageEntry]) {
    for e in entries {
        let request = Request {
            address: e.address as u64,
            write: true,
            data: e.value,
        };
        if model.answer(&request, &[]).error != RegError::None {
            continue;
        }
        let r = model.register_at(request.address).unwrap().clone();
        let i = model.map().index(r.access, &r.name);
        match r.access {
            Access::ReadWrite => model.settings[i] = e.value & r.mask(),
            Access::WriteOneToClear => model.flags[i] &= !e.value,
            Access::Counter => model.counters[i].value = 0,
            Access::ReadOnly => {}
        }
    }
}
