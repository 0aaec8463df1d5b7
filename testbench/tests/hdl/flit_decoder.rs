//! FlitDecoder against the software codec of `hdl::formats` (the same definition, read twice).
//!
//! FlitDecoder is combinational (no clock, no register, no `reset` port): there is no reset
//! behaviour to test; every cycle's outputs depend on that cycle's flit alone.
use hdl::formats::flit::{ControlCode, Flit};
use hdl::formats::PacketKind;
use hdl::prelude::*;
use testbench::models::formats::{random_control, random_header};
use testbench::{port_table, run_both, Backend, BenchRng};

fn random_flit(rng: &mut BenchRng) -> u128 {
    match rng.range(0, 5) {
        0 => rng.bits(65), // anything, malformed included
        1 => Flit::Body(rng.bits(64) as u64).pack(),
        2 => {
            let len = rng.bits(8) as u8;
            Flit::Head(random_header(rng, len)).pack()
        }
        3 => Flit::Tail {
            crc16: rng.bits(16) as u16,
        }
        .pack(),
        4 => {
            let code = ControlCode::from_code(rng.bits(6) as u8).unwrap_or(ControlCode::Idle);
            random_control(rng, code)
        }
        _ => {
            // Reserved encodings the decoder must flag.
            let c = rng.range(6, 0x1f) as u128;
            [
                (3u128 << 62) | rng.bits(62),
                c << 56,
                (1u128 << 63) | (rng.range(5, 15) as u128) << 35,
            ][rng.range(0, 2) as usize]
        }
    }
}

fn bench(b: &mut dyn Backend) -> u64 {
    let mut rng = BenchRng::new(7);
    let p = |n: &str| b.port(n);
    let (flit, is_body, is_head, is_tail, is_control) = (
        p("flit"),
        p("is_body"),
        p("is_head"),
        p("is_tail"),
        p("is_control"),
    );
    let (is_idle, is_credit, is_bad, is_lt, malformed) = (
        p("is_idle"),
        p("is_credit"),
        p("is_bad_marker"),
        p("is_link_transfer"),
        p("malformed"),
    );
    let (code, dst, src, vc, kind, len, delay, ctrl_vc, credits) = (
        p("code"),
        p("dst"),
        p("src"),
        p("vc"),
        p("kind"),
        p("len"),
        p("delay"),
        p("ctrl_vc"),
        p("credits"),
    );
    let mut malformed_seen = 0;
    for i in 0..3000 {
        let w = random_flit(&mut rng);
        b.poke(flit, w);
        let decoded = Flit::unpack(w);
        let (t, h, tl) = ((w >> 64) & 1 == 1, (w >> 63) & 1 == 1, (w >> 62) & 1 == 1);
        let ctrl = !t && !h && !tl;
        let c = ((w >> 56) & 0x3f) as u8;
        let k = ((w >> 35) & 0xf) as u8;
        // Head and tail both set, a head with a reserved kind, or a reserved control code.
        let want_malformed = (!t && h && (tl || PacketKind::from_code(k).is_none()))
            || (ctrl && ControlCode::from_code(c).is_none());
        assert_eq!(b.peek_bool(is_body), t, "flit {i} {w:#x}");
        assert_eq!(b.peek_bool(is_head), !t && h, "flit {i} {w:#x}");
        assert_eq!(b.peek_bool(is_tail), !t && !h && tl, "flit {i} {w:#x}");
        assert_eq!(b.peek_bool(is_control), ctrl, "flit {i} {w:#x}");
        assert_eq!(b.peek_bool(malformed), want_malformed, "flit {i} {w:#x}");
        malformed_seen += want_malformed as u64;
        match decoded {
            Ok(Flit::Head(hd)) => {
                assert_eq!(b.peek(dst), hd.dst as u128);
                assert_eq!(b.peek(src), hd.src as u128);
                assert_eq!(b.peek(vc), hd.vc as u128);
                assert_eq!(b.peek(kind), hd.kind.code() as u128);
                assert_eq!(b.peek(len), hd.len as u128);
                assert_eq!(b.peek(delay), hd.delay as u128);
            }
            Ok(Flit::Control {
                code: cc,
                vc: v,
                credits: cr,
                ..
            }) => {
                assert_eq!(b.peek(code), cc.code() as u128);
                assert_eq!(b.peek_bool(is_idle), cc == ControlCode::Idle);
                assert_eq!(b.peek_bool(is_credit), cc == ControlCode::CrdtRet);
                assert_eq!(
                    b.peek_bool(is_bad),
                    matches!(
                        cc,
                        ControlCode::HeadBadPkt | ControlCode::BodyBadPkt | ControlCode::TailBadPkt
                    )
                );
                assert_eq!(
                    b.peek_bool(is_lt),
                    matches!(cc, ControlCode::LinkTransfer(_))
                );
                assert_eq!(b.peek(ctrl_vc), v as u128);
                assert_eq!(b.peek(credits), cr as u128);
            }
            _ => {}
        }
        b.tick();
    }
    assert!(
        malformed_seen > 100,
        "the bench must exercise malformed flits"
    );
    malformed_seen
}

#[test]
fn flit_decoder_matches_the_codec() {
    let table = || {
        port_table!(comb FlitDecoder; flit, is_body, is_head, is_tail, is_control, is_idle, is_credit,
            is_bad_marker, is_link_transfer, malformed, code, dst, src, vc, kind, len, delay, ctrl_vc, credits)
    };
    run_both("flit_decoder", FlitDecoder::default, table, bench);
}
