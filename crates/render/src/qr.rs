//! The payment link as a QR code, reduced to dark rectangles in module units so it is drawn as
//! vectors (sharp at any zoom, a few hundred bytes) rather than as an image.

use qrcode::{EcLevel, QrCode};

use crate::RenderError;

/// Dark runs of a QR code: `(x, y, w)` in modules, each one module high, plus the side length.
#[derive(Clone, Debug, PartialEq)]
pub struct QrRuns {
    pub side: usize,
    pub runs: Vec<(u16, u16, u16)>,
}

/// Error correction M: survives a crease or a smudge on paper, keeps the code small.
pub fn encode(link: &str) -> Result<QrRuns, RenderError> {
    let code = QrCode::with_error_correction_level(link.as_bytes(), EcLevel::M)
        .map_err(|e| RenderError::PaymentLink(e.to_string()))?;
    let side = code.width();
    let dark: Vec<bool> = code
        .to_colors()
        .into_iter()
        .map(|c| c == qrcode::Color::Dark)
        .collect();
    let mut runs = Vec::new();
    for y in 0..side {
        let mut x = 0;
        while x < side {
            if dark[y * side + x] {
                let start = x;
                while x < side && dark[y * side + x] {
                    x += 1;
                }
                // A QR code is at most 177 modules wide.
                runs.push((start as u16, y as u16, (x - start) as u16));
            } else {
                x += 1;
            }
        }
    }
    Ok(QrRuns { side, runs })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_a_link_with_finder_patterns_in_three_corners() {
        let q = encode("https://pay.example.com/i/INV-2025-0042").unwrap();
        assert!(q.side >= 21);
        // The top-left finder pattern's first row is seven dark modules.
        assert_eq!(q.runs[0], (0, 0, 7));
        assert!(q
            .runs
            .iter()
            .any(|&(x, y, w)| y == 0 && x as usize + w as usize == q.side));
        assert!(q
            .runs
            .iter()
            .any(|&(x, y, _)| x == 0 && y as usize == q.side - 1));
    }

    #[test]
    fn refuses_a_link_too_long_for_any_qr_code() {
        let long = "x".repeat(5000);
        assert!(matches!(encode(&long), Err(RenderError::PaymentLink(_))));
    }
}
