//! User configuration (what a user sets, serde TOML with defaults) and its validation.
//!
//! Every field is declared once in [`config_sections!`]: the struct, its default, its range or
//! power-of-two rule, its documentation, and the commented TOML printed by `hpcnet config` all
//! come from that declaration. Values derived from the configuration (pointer widths, counts of
//! instances) are computed where the tops are built, never stored here.
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// How a field's value is constrained.
#[derive(Clone, Copy, Debug)]
pub enum Rule {
    /// `min..=max`.
    Range(u64, u64),
    /// A power of two in `min..=max`.
    Pow2(u64, u64),
}

impl Rule {
    fn check(&self, v: u64) -> Result<(), String> {
        match *self {
            Rule::Range(lo, hi) if !(lo..=hi).contains(&v) => {
                Err(format!("must be in {lo}..={hi}"))
            }
            Rule::Pow2(lo, hi) if !(lo..=hi).contains(&v) || !v.is_power_of_two() => {
                Err(format!("must be a power of two in {lo}..={hi}"))
            }
            _ => Ok(()),
        }
    }
    fn describe(&self) -> String {
        match *self {
            Rule::Range(lo, hi) => format!("{lo}..={hi}"),
            Rule::Pow2(lo, hi) => format!("power of two, {lo}..={hi}"),
        }
    }
}

/// Documentation of one configuration field.
#[derive(Clone, Debug)]
pub struct FieldDoc {
    /// `section.key`.
    pub path: String,
    /// Default value.
    pub default: u64,
    /// Allowed values.
    pub rule: Rule,
    /// Meaning.
    pub doc: &'static str,
}

macro_rules! config_sections {
    ($(
        $(#[doc = $sdoc:literal])*
        $section:ident : $sty:ident {
            $( #[doc = $fdoc:literal] $field:ident : $fty:ty = $default:expr, $rule:expr; )*
        }
    )*) => {
        $(
            $(#[doc = $sdoc])*
            #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
            #[serde(deny_unknown_fields, default)]
            pub struct $sty {
                $( #[doc = $fdoc] pub $field: $fty, )*
            }
            impl Default for $sty {
                fn default() -> Self {
                    Self { $( $field: $default, )* }
                }
            }
        )*

        /// The whole configuration of a build.
        #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
        #[serde(deny_unknown_fields, default)]
        pub struct Config {
            $( $(#[doc = $sdoc])* pub $section: $sty, )*
        }

        impl Config {
            /// Every field with its default, rule and meaning, in declaration order.
            pub fn fields() -> Vec<FieldDoc> {
                let d = Config::default();
                vec![$($(
                    FieldDoc {
                        path: format!("{}.{}", stringify!($section), stringify!($field)),
                        default: d.$section.$field as u64,
                        rule: $rule,
                        doc: $fdoc.trim(),
                    },
                )*)*]
            }
            /// Checks every field against its rule; the error names the field and what is allowed.
            pub fn validate(&self) -> Result<(), String> {
                $($(
                    ($rule).check(self.$section.$field as u64).map_err(|e| {
                        format!("{}.{} = {}: {e}", stringify!($section), stringify!($field), self.$section.$field)
                    })?;
                )*)*
                self.cross_checks()
            }
            fn section_docs() -> Vec<(&'static str, &'static str)> {
                vec![$( (stringify!($section), concat!($($sdoc),*)), )*]
            }
        }
    };
}

config_sections! {
    /// The network: flow-control resources shared by every chip.
    network: NetworkConfig {
        /// Virtual channels per link (GET requests need their own, so at least 2 for the NIC).
        vcs: u32 = 2, Rule::Range(1, 8);
        /// Longest fabric packet in flits, head and tail included; longer packets are dropped.
        max_packet_flits: u32 = 32, Rule::Range(2, 255);
        /// Virtual channel of management packets (must be below network.vcs; the published NRC uses VC3 of 6).
        mgmt_vc: u32 = 1, Rule::Range(0, 7);
    }
    /// The link layer of every network port.
    link: LinkConfig {
        /// Lanes per link (the link degrades 4 -> 3 -> 2 -> 1 when lanes are removed).
        lanes: u32 = 4, Rule::Range(1, 4);
        /// Bits per lane on the wire: 32 (an LTP transfer, XFR, per lane per cycle) or 16 (an XFR in two cycles, through the lane gearboxes). The link core moves one flit per cycle, so 4 lanes of 16 bits carry what it sends (0.97 flit slots per cycle, of which it fills 94 %, `bench link-sim`): the default. 4 lanes of 32 bits offer twice that, and half stay empty.
        lane_bits: u32 = 16, Rule::Pow2(16, 32);
        /// Receive buffer per virtual channel, in flits (the credits each VC starts with). 256 by default: a VC keeps the link busy only while its buffer covers the credit loop (a flit's credit returns after its LTP is checked, its packet delivered whole and the credit carried back in a checked LTP), so 64-flit buffers held the default link at 0.856 flits/cycle error-free where 256 reach 0.912 (`bench link-sim`), and a 65-bit buffer of up to 256 flits takes the same five iCE40 block RAMs (256 x 16 bits each) as one of 64.
        vc_buffer_flits: u32 = 256, Rule::Pow2(4, 4096);
        /// Replay buffer depth in LTPs.
        replay_ltps: u32 = 16, Rule::Pow2(2, 64);
        /// Cycles a receiver waits for the retry marker before asking again (more than the round trip, about 100 cycles over a 4-cycle wire; a lost request costs this long).
        retry_timeout: u32 = 256, Rule::Range(64, 65535);
        /// Cycles a transmitter waits for a round-trip echo before polling (more than the round trip; a lost echo can stall a full replay buffer this long).
        rt_timeout: u32 = 256, Rule::Range(64, 65535);
        /// Retry requests in a row without a delivered LTP before the link is declared down and trains again (each waits up to link.retry_timeout, so a lane stuck at a constant takes the link down after about retry_limit x retry_timeout cycles, and training leaves that lane out).
        retry_limit: u32 = 8, Rule::Range(1, 255);
        /// Error score at which a lane is removed (0: lanes are never removed at run time). Each error charged to a lane adds one; the score is the hysteresis of the rate test below.
        lane_threshold: u32 = 8, Rule::Range(0, 255);
        /// Delivered LTPs per one-point decrease of every lane's error score: a lane is removed when its errors outpace one per this many LTPs (with 16 at 4 lanes, about one error per 4,200 bits carried), so errors spread evenly at a lower rate never strip good lanes.
        lane_drain: u32 = 16, Rule::Range(1, 65535);
        /// Cycles a link end waits in training for the far end to become ready before it starts training over.
        train_timeout: u32 = 2048, Rule::Range(256, 65535);
    }
    /// The router (NRC) core: per-port input buffers.
    router: RouterConfig {
        /// Flit slots of each port's input buffer (DAMQ: one RAM shared by the port's VCs; at most 256, one iCE40 block-RAM row of 16 bits per 65-bit flit column).
        input_buffer_flits: u32 = 128, Rule::Pow2(16, 256);
        /// Slots of a port's input buffer reserved for each VC, so one VC can never starve another (at least network.max_packet_flits: virtual cut-through). The rest of the buffer is lent to whichever VCs need it.
        reserved_flits_per_vc: u32 = 32, Rule::Range(2, 255);
        /// VC policy: the VC a data packet leaves on (hdl::vc_policy): 0 keep (the input VC), 1 dest_mod (data VC dst mod n over the VCs other than network.mgmt_vc), 2 up_down (fat trees: the upper half of the data VCs once a packet has turned down; needs 2 data VCs). GET packets keep their VC, management packets stay on network.mgmt_vc.
        vc_policy: u32 = 0, Rule::Range(0, 2);
        /// Switch allocator iterations per cycle (iSLIP-style: each further iteration matches inputs and outputs the earlier ones left unmatched).
        alloc_iterations: u32 = 1, Rule::Range(1, 3);
        /// Route stage: 1 registers a head's route lookup before the switch sees the head (head in to head out 3 cycles at zero load; the adaptive route computation is off the switch allocation's path, which it otherwise lengthens to about 60 ns on ECP5-85k); 0 offers the head to the switch in the cycle its route arrives (2 cycles per hop, a slower clock).
        route_stage: u32 = 1, Rule::Range(0, 1);
        /// Ports of the router chip (top nrc_top): 5, the FPGA-sized default, or 24, the published NRC (with 6 VCs, 256-slot input buffers, 32-LTP replay buffers, 128-flit receive buffers, tiles 4 x 6 and its relay-station mesh in 4 rows of 6); each chip size is a separate elaboration, so only these two are built. The block tops (nrc_core, nrc_switch, ...) are 5-port routers' blocks whatever this says.
        ports: u32 = 5, Rule::Range(2, 64);
        /// Crossbar tile rows: the input ports are split into this many rows (at most the router's ports; 1 with tile_cols = 1 is the flat crossbar; the published 24-port router uses 4 x 6).
        tile_rows: u32 = 1, Rule::Range(1, 64);
        /// Crossbar tile columns: the output ports are split into this many columns (at most the router's ports).
        tile_cols: u32 = 1, Rule::Range(1, 64);
    }
    /// The network interface chip (NIC): SR-IOV functions, doorbells and the host interface (docs/host-interface.md).
    nic: NicConfig {
        /// SR-IOV functions: function 0 is the physical function (PF), the others virtual functions (VFs); at most 8, as packets and events carry 3 bits (1 PF + 7 VFs in nic-dma-sriov.md).
        functions: u32 = 8, Rule::Range(1, 8);
        /// Queue pairs per function (packets and events carry 4 bits).
        qps_per_function: u32 = 4, Rule::Pow2(1, 16);
        /// Doorbells each function's FIFO holds: at most this many outstanding descriptors per function (software keeps to it; a doorbell beyond it is refused and counted).
        doorbell_depth: u32 = 32, Rule::Pow2(4, 256);
        /// Host read tags (outstanding memory reads) of the central tag pool shared by descriptor, data and NAP-buffer reads; 32 is PCIe's 5-bit tag, 256 its extended tag.
        tags: u32 = 32, Rule::Pow2(4, 256);
        /// Largest payload of a network packet in bytes (PUT, NAP and GET-response data are cut here); header and tail take 3 more flits, so mtu_bytes / 8 + 3 must not exceed network.max_packet_flits.
        mtu_bytes: u32 = 128, Rule::Pow2(16, 1024);
        /// Largest host memory read request in bytes (PCIe Max_Read_Request_Size): data reads are cut at this size and at 4 KB boundaries.
        max_read_request: u32 = 512, Rule::Pow2(64, 4096);
        /// Largest posted host memory write in bytes (PCIe Max_Payload_Size): uploads and events are cut at this size and at 4 KB boundaries.
        max_payload: u32 = 256, Rule::Pow2(64, 4096);
        /// Open-message entries of the NAP upload: multi-packet NAP messages assembled at once (flip-flops, a small CAM keyed by source node, function and QP and target function and QP); a multi-packet message whose packet finds every entry busy is dropped with an AssemblyFull event. Single-packet messages need no entry.
        nap_open: u32 = 8, Rule::Range(1, 32);
        /// Cycles an open NAP message may go without a packet before its entry is freed with a NapIncomplete event naming its buffer (its timer ticks every nap_timeout / 4 cycles, so the entry goes after more than nap_timeout and at most 1.25 x nap_timeout idle cycles; 65536 is 0.66 ms at 100 MHz, far beyond any packet's flight).
        nap_timeout: u32 = 65536, Rule::Pow2(16, 16777216);
    }
    /// The FPGA board build (Alchitry Cu, iCE40-HX8K).
    fpga: FpgaConfig {
        /// Clock frequency the place-and-route must meet, MHz (the board's oscillator is 100).
        clock_mhz: u32 = 100, Rule::Range(1, 300);
        /// Depth of the demo top's FIFO, in 32-bit words.
        demo_fifo_depth: u32 = 512, Rule::Pow2(2, 4096);
    }
}

impl Config {
    /// Rules that involve more than one field.
    fn cross_checks(&self) -> Result<(), String> {
        if self.network.max_packet_flits > self.link.vc_buffer_flits {
            return Err(format!(
                "network.max_packet_flits = {}: must not exceed link.vc_buffer_flits = {} (virtual cut-through buffers a whole packet)",
                self.network.max_packet_flits, self.link.vc_buffer_flits
            ));
        }
        if self.network.mgmt_vc >= self.network.vcs {
            return Err(format!(
                "network.mgmt_vc = {}: must be below network.vcs = {} (management packets travel on one of the link's virtual channels)",
                self.network.mgmt_vc, self.network.vcs
            ));
        }
        if self.router.reserved_flits_per_vc < self.network.max_packet_flits {
            return Err(format!(
                "router.reserved_flits_per_vc = {}: must be at least network.max_packet_flits = {} (virtual cut-through: an upstream router starts a packet only with credits for all of it, so every VC must be able to hold a whole packet)",
                self.router.reserved_flits_per_vc, self.network.max_packet_flits
            ));
        }
        let needed = self.network.vcs * (self.router.reserved_flits_per_vc + 1) + 2;
        if self.router.input_buffer_flits < needed {
            return Err(format!(
                "router.input_buffer_flits = {}: must be at least network.vcs * (router.reserved_flits_per_vc + 1) + 2 = {needed} (each VC's reservation, one list-tail slot per VC and two slots of free-list latency)",
                self.router.input_buffer_flits
            ));
        }
        let nic_flits = self.nic.mtu_bytes / 8 + 3;
        if nic_flits > self.network.max_packet_flits {
            return Err(format!(
                "nic.mtu_bytes = {}: needs packets of mtu_bytes / 8 + 3 = {nic_flits} flits (head, header, payload, tail), more than network.max_packet_flits = {}",
                self.nic.mtu_bytes, self.network.max_packet_flits
            ));
        }
        if self.router.tile_rows > self.router.ports || self.router.tile_cols > self.router.ports {
            return Err(format!(
                "router.tile_rows = {} and router.tile_cols = {}: must not exceed router.ports = {} (a tile row holds at least one input, a column one output)",
                self.router.tile_rows, self.router.tile_cols, self.router.ports
            ));
        }
        let data_vcs =
            crate::vc_policy::data_vcs(self.network.vcs as usize, self.network.mgmt_vc as usize)
                .len();
        if self.router.vc_policy == 2 && data_vcs < 2 {
            return Err(format!(
                "router.vc_policy = 2: up_down needs at least 2 data VCs (network.vcs = {} less network.mgmt_vc leaves {data_vcs}): a lower half for packets going up and an upper half for packets turned down",
                self.network.vcs
            ));
        }
        Ok(())
    }

    /// The router's VC policy (`router.vc_policy`, validated).
    pub fn vc_policy(&self) -> crate::vc_policy::VcPolicy {
        crate::vc_policy::VcPolicy::from_code(self.router.vc_policy).expect("validated")
    }

    /// Parses TOML and validates it. The error is one line naming the field and what is allowed.
    pub fn from_toml(text: &str) -> Result<Self, String> {
        let cfg: Config = toml::from_str(text).map_err(|e| one_line_toml_error(text, &e))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// The default configuration as commented TOML (what `hpcnet config` prints).
    pub fn default_toml() -> String {
        let mut s =
            String::from("# hpcnet configuration (defaults shown). Every field is optional.\n");
        let fields = Config::fields();
        for (section, doc) in Config::section_docs() {
            write!(s, "\n# {}\n[{section}]\n", doc.trim()).unwrap();
            for f in fields
                .iter()
                .filter(|f| f.path.starts_with(&format!("{section}.")))
            {
                let key = &f.path[section.len() + 1..];
                writeln!(
                    s,
                    "# {}. Allowed: {}.\n{key} = {}",
                    f.doc.trim_end_matches('.'),
                    f.rule.describe(),
                    f.default
                )
                .unwrap();
            }
        }
        s
    }

    /// A short stable digest of the configuration, for the header of emitted files.
    pub fn digest(&self) -> String {
        let text = toml::to_string(self).expect("config serializes");
        let mut h: u32 = 0x811c9dc5; // FNV-1a: stable across Rust versions, unlike DefaultHasher
        for b in text.bytes() {
            h = (h ^ b as u32).wrapping_mul(0x01000193);
        }
        format!("{h:08x}")
    }
}

/// Turns a TOML error into one line: `section.key (line N): message`.
fn one_line_toml_error(text: &str, e: &toml::de::Error) -> String {
    let msg = e.message().replace('\n', " ");
    let Some(span) = e.span() else {
        return msg;
    };
    let before = &text[..span.start.min(text.len())];
    let line_no = before.matches('\n').count() + 1;
    let section = before.lines().rev().find_map(|l| {
        let l = l.trim();
        (l.starts_with('[') && l.ends_with(']'))
            .then(|| l.trim_matches(|c| c == '[' || c == ']').to_string())
    });
    let line = text.lines().nth(line_no - 1).unwrap_or("").trim();
    let key = line
        .split('=')
        .next()
        .map(str::trim)
        .filter(|k| !k.is_empty() && !k.starts_with('['));
    match (section, key) {
        (Some(s), Some(k)) => format!("{s}.{k} (line {line_no}): {msg}"),
        (None, Some(k)) => format!("{k} (line {line_no}): {msg}"),
        _ => format!("line {line_no}: {msg}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid_and_round_trips() {
        Config::default().validate().unwrap();
        assert_eq!(
            Config::from_toml(&Config::default_toml()).unwrap(),
            Config::default()
        );
        assert_eq!(Config::from_toml("").unwrap(), Config::default());
    }

    #[test]
    fn bad_configs_name_the_field() {
        let cases = [
            ("[link]\nlanes = 0\n", "link.lanes = 0: must be in 1..=4"),
            (
                "[link]\nreplay_ltps = 6\n",
                "link.replay_ltps = 6: must be a power of two in 2..=64",
            ),
            ("[network]\nvcs = 9\n", "network.vcs = 9: must be in 1..=8"),
            (
                "[link]\nvc_buffer_flits = 16\n",
                "network.max_packet_flits = 32: must not exceed link.vc_buffer_flits = 16",
            ),
            (
                "[network]\nmgmt_vc = 2\n",
                "network.mgmt_vc = 2: must be below network.vcs = 2",
            ),
            (
                "[router]\nreserved_flits_per_vc = 31\n",
                "router.reserved_flits_per_vc = 31: must be at least network.max_packet_flits = 32",
            ),
            (
                "[router]\ninput_buffer_flits = 64\n",
                "router.input_buffer_flits = 64: must be at least network.vcs * (router.reserved_flits_per_vc + 1) + 2 = 68",
            ),
            (
                "[router]\ninput_buffer_flits = 512\n",
                "router.input_buffer_flits = 512: must be a power of two in 16..=256",
            ),
            (
                "[router]\nvc_policy = 2\n",
                "router.vc_policy = 2: up_down needs at least 2 data VCs",
            ),
            ("[router]\nvc_policy = 3\n", "router.vc_policy = 3: must be in 0..=2"),
            (
                "[router]\ntile_cols = 6\n",
                "router.tile_rows = 1 and router.tile_cols = 6: must not exceed router.ports = 5",
            ),
            ("[nic]\nfunctions = 9\n", "nic.functions = 9: must be in 1..=8"),
            (
                "[nic]\nqps_per_function = 3\n",
                "nic.qps_per_function = 3: must be a power of two in 1..=16",
            ),
            (
                "[nic]\ntags = 512\n",
                "nic.tags = 512: must be a power of two in 4..=256",
            ),
            (
                "[nic]\nmtu_bytes = 256\n",
                "nic.mtu_bytes = 256: needs packets of mtu_bytes / 8 + 3 = 35 flits",
            ),
        ];
        for (text, want) in cases {
            let e = Config::from_toml(text).unwrap_err();
            assert!(e.starts_with(want), "{text:?}: got {e:?}");
            assert!(!e.contains('\n'), "one line: {e:?}");
        }
        let e = Config::from_toml("[link]\nlanez = 2\n").unwrap_err();
        assert!(
            e.contains("link.lanez") && e.contains("unknown field") && e.contains("lanes"),
            "{e}"
        );
        let e = Config::from_toml("[link]\nlanes = \"four\"\n").unwrap_err();
        assert!(e.starts_with("link.lanes (line 2)"), "{e}");
        let e = Config::from_toml("[nic2]\n").unwrap_err();
        assert!(e.contains("unknown field") && e.contains("nic2"), "{e}");
        let e = Config::from_toml("[link]\nlanes = -1\n").unwrap_err();
        assert!(e.starts_with("link.lanes"), "{e}");
        assert!(!e.contains('\n'));
    }
}
