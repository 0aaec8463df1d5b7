//! Plain SVG line plots for the benches' figures (no plotting crate: a few lines of text).
//! Each axis is linear or logarithmic; curves are labelled in a legend on the right.
use std::fmt::Write;

/// One line of a plot.
pub struct Curve {
    /// Its label.
    pub label: String,
    /// Its colour (SVG).
    pub colour: &'static str,
    /// (x, y) points; points with a non-finite coordinate are left out.
    pub points: Vec<(f64, f64)>,
}

/// Colours for up to eight curves, told apart in print.
pub const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f",
];

/// How an axis maps values to its length.
#[derive(Clone, Copy, Debug)]
pub enum Scale {
    /// From `min` to `max`, a grid line every `step`.
    Linear { min: f64, max: f64, step: f64 },
    /// Powers of `base` from `base^low` up to the first power at or above every point (at
    /// least `base^high`); a grid line at each power.
    Log { base: f64, low: i32, high: i32 },
}

/// An axis: its label and scale.
#[derive(Clone, Debug)]
pub struct Axis {
    /// The label, with its unit.
    pub label: String,
    /// Its scale.
    pub scale: Scale,
}

impl Axis {
    /// A linear axis.
    pub fn linear(label: &str, min: f64, max: f64, step: f64) -> Self {
        Self {
            label: label.into(),
            scale: Scale::Linear { min, max, step },
        }
    }
    /// A logarithmic axis from `base^low`, at least to `base^high`.
    pub fn log(label: &str, base: f64, low: i32, high: i32) -> Self {
        Self {
            label: label.into(),
            scale: Scale::Log { base, low, high },
        }
    }
    /// The scale with a logarithmic top raised to cover `values`.
    fn fitted(&self, values: impl Iterator<Item = f64>) -> Scale {
        match self.scale {
            Scale::Log { base, low, high } => {
                let top = values
                    .filter(|v| v.is_finite() && *v > 0.0)
                    .map(|v| v.log(base).ceil() as i32)
                    .fold(high, i32::max);
                Scale::Log {
                    base,
                    low,
                    high: top.max(low + 1),
                }
            }
            linear => linear,
        }
    }
}

impl Scale {
    /// Where `v` falls, 0 (axis start) to 1 (axis end), clamped.
    fn fraction(self, v: f64) -> f64 {
        let f = match self {
            Scale::Linear { min, max, .. } => (v - min) / (max - min),
            Scale::Log { base, low, high } => {
                (v.max(base.powi(low)).log(base) - low as f64) / (high - low) as f64
            }
        };
        f.clamp(0.0, 1.0)
    }
    /// The grid values with their labels.
    fn ticks(self) -> Vec<(f64, String)> {
        match self {
            Scale::Linear { min, max, step } => {
                let n = ((max - min) / step).round() as i32;
                (0..=n)
                    .map(|k| {
                        let v = min + k as f64 * step;
                        let decimals = if step.fract() == 0.0 { 0 } else { 1 };
                        (v, format!("{v:.decimals$}"))
                    })
                    .collect()
            }
            Scale::Log { base, low, high } => (low..=high)
                .map(|e| {
                    let v = base.powi(e);
                    (v, short_number(v))
                })
                .collect(),
        }
    }
}

/// 512, 4K, 512K, 2M: powers of two in bytes; other values as they are.
fn short_number(v: f64) -> String {
    let v = v.round() as u64;
    match v {
        _ if v >= 1 << 20 && v.is_multiple_of(1 << 20) => format!("{}M", v >> 20),
        _ if v >= 1 << 10 && v.is_multiple_of(1 << 10) && v.is_power_of_two() => {
            format!("{}K", v >> 10)
        }
        _ => v.to_string(),
    }
}

/// An SVG plot of `curves` over axes `x` and `y`.
pub fn svg(title: &str, x_axis: &Axis, y_axis: &Axis, curves: &[Curve]) -> String {
    let (w, h, left, right, top, bottom) = (720.0, 460.0, 70.0, 170.0, 40.0, 50.0);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let xs = x_axis.fitted(curves.iter().flat_map(|c| c.points.iter().map(|p| p.0)));
    let ys = y_axis.fitted(curves.iter().flat_map(|c| c.points.iter().map(|p| p.1)));
    let x = |v: f64| left + xs.fraction(v) * pw;
    let y = |v: f64| top + ph - ys.fraction(v) * ph;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="14">{}</text>"#,
        left + pw / 2.0,
        escape(title)
    );
    for (v, label) in xs.ticks() {
        let _ = writeln!(
            s,
            r##"<line x1="{0:.1}" y1="{1:.1}" x2="{0:.1}" y2="{2:.1}" stroke="#ddd"/><text x="{0:.1}" y="{3:.1}" text-anchor="middle">{4}</text>"##,
            x(v),
            top,
            top + ph,
            top + ph + 16.0,
            label
        );
    }
    for (v, label) in ys.ticks() {
        let _ = writeln!(
            s,
            r##"<line x1="{0:.1}" y1="{1:.1}" x2="{2:.1}" y2="{1:.1}" stroke="#ddd"/><text x="{3:.1}" y="{4:.1}" text-anchor="end">{5}</text>"##,
            left,
            y(v),
            left + pw,
            left - 6.0,
            y(v) + 4.0,
            label
        );
    }
    let _ = writeln!(
        s,
        r#"<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        left + pw / 2.0,
        h - 12.0,
        escape(&x_axis.label)
    );
    let _ = writeln!(
        s,
        r#"<text x="18" y="{0}" text-anchor="middle" transform="rotate(-90 18 {0})">{1}</text>"#,
        top + ph / 2.0,
        escape(&y_axis.label)
    );
    for (k, c) in curves.iter().enumerate() {
        let pts: Vec<String> = c
            .points
            .iter()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .map(|&(px, py)| format!("{:.1},{:.1}", x(px), y(py)))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="2"/>"#,
            pts.join(" "),
            c.colour
        );
        for p in &pts {
            let (px, py) = p.split_once(',').expect("a point");
            let _ = writeln!(
                s,
                r#"<circle cx="{px}" cy="{py}" r="3" fill="{}"/>"#,
                c.colour
            );
        }
        let ly = top + 10.0 + 20.0 * k as f64;
        let _ = writeln!(
            s,
            r#"<line x1="{0:.1}" y1="{1:.1}" x2="{2:.1}" y2="{1:.1}" stroke="{3}" stroke-width="2"/><text x="{4:.1}" y="{5:.1}">{6}</text>"#,
            left + pw + 12.0,
            ly,
            left + pw + 36.0,
            c.colour,
            left + pw + 42.0,
            ly + 4.0,
            escape(&c.label)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// `text` with the characters XML reserves escaped.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SVG writer's output for two small curves is well-formed XML: every element closed
    /// in order, attributes quoted, text escaped, one polyline and one legend entry per curve,
    /// every coordinate inside the picture.
    #[test]
    fn svg_is_well_formed() {
        let curves = [
            Curve {
                label: "uniform <6 VCs> & co".into(),
                colour: COLOURS[0],
                points: vec![(0.1, 3.5), (0.5, 12.0), (1.0, 2500.0)],
            },
            Curve {
                label: "hotspot".into(),
                colour: COLOURS[1],
                points: vec![
                    (0.1, 4.0),
                    (0.3, f64::INFINITY),
                    (0.5, f64::NAN),
                    (0.9, 40.0),
                ],
            },
        ];
        let text = svg(
            "latency \"test\"",
            &Axis::linear("offered load", 0.0, 1.0, 0.1),
            &Axis::log("latency", 10.0, 0, 1),
            &curves,
        );
        let mut open: Vec<String> = vec![];
        let mut rest = text.as_str();
        let mut elements = 0;
        while let Some(start) = rest.find('<') {
            let between = &rest[..start];
            assert!(!between.contains('>'), "a stray '>' in text: {between:?}");
            for (k, _) in between.match_indices('&') {
                assert!(
                    ["&amp;", "&lt;", "&gt;", "&quot;"]
                        .iter()
                        .any(|e| between[k..].starts_with(e)),
                    "an unescaped '&' in text: {between:?}"
                );
            }
            let end = rest[start..].find('>').expect("a tag is closed") + start;
            let tag = &rest[start + 1..end];
            assert!(!tag.contains('<'), "'<' inside a tag: {tag:?}");
            assert_eq!(
                tag.matches('"').count() % 2,
                0,
                "unbalanced quotes: {tag:?}"
            );
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(
                    open.pop().as_deref(),
                    Some(name),
                    "closing tag out of order"
                );
            } else {
                let name = tag
                    .split(|c: char| c.is_whitespace() || c == '/')
                    .next()
                    .expect("a name")
                    .to_string();
                assert!(
                    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric()),
                    "element name {name:?}"
                );
                elements += 1;
                if !tag.ends_with('/') {
                    open.push(name);
                }
            }
            rest = &rest[end + 1..];
        }
        assert!(open.is_empty(), "elements left open: {open:?}");
        assert!(rest.trim().is_empty(), "text after the root: {rest:?}");
        assert!(elements > 10);
        assert!(text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert_eq!(text.matches("<polyline").count(), 2);
        assert!(text.contains("uniform &lt;6 VCs&gt; &amp; co"));
        assert!(text.contains("latency &quot;test&quot;"));
        assert!(!text.contains("NaN") && !text.contains("inf"));
        // Every number in a coordinate attribute lies inside the picture.
        for attribute in [
            " x=\"", " y=\"", " cx=\"", " cy=\"", " x1=\"", " y1=\"", " x2=\"", " y2=\"",
        ] {
            for piece in text.split(attribute).skip(1) {
                let text = &piece[..piece.find('"').expect("closing quote")];
                let value: f64 = text
                    .parse()
                    .unwrap_or_else(|_| panic!("{attribute}{text}: not a number"));
                assert!((0.0..=720.0).contains(&value), "{attribute}{value}");
            }
        }
        // The curve through the 2,500-cycle point: the top decade is 10^4.
        assert!(text.contains(">10000<"));
    }

    /// A logarithmic x axis in bytes: ticks at every power of two up to the largest point,
    /// labelled 1, 2, ..., 1K, ..., 512K; points placed in order along it.
    #[test]
    fn log_axis_in_bytes() {
        let curve = Curve {
            label: "PUT".into(),
            colour: COLOURS[0],
            points: vec![(1.0, 0.01), (1024.0, 0.5), (524288.0, 0.84)],
        };
        let text = svg(
            "bandwidth",
            &Axis::log("payload (bytes)", 2.0, 0, 4),
            &Axis::linear("fraction of the port", 0.0, 1.0, 0.1),
            &[curve],
        );
        for label in [">1<", ">2<", ">1K<", ">512K<"] {
            assert!(text.contains(label), "tick {label}");
        }
        assert!(!text.contains(">1M<"), "no tick beyond the largest point");
        let points = text.split("points=\"").nth(1).expect("a polyline");
        let xs: Vec<f64> = points[..points.find('"').expect("end")]
            .split(' ')
            .map(|p| p.split(',').next().expect("x").parse().expect("a number"))
            .collect();
        assert_eq!(xs.len(), 3);
        assert!(xs[0] < xs[1] && xs[1] < xs[2]);
        // 1 KB is 10 of 19 octaves along the 480-pixel plot that starts at x = 70.
        assert!((xs[1] - (70.0 + 480.0 * 10.0 / 19.0)).abs() < 0.2, "{xs:?}");
        assert_eq!((xs[0], xs[2]), (70.0, 550.0), "the ends of the axis");
    }
}
