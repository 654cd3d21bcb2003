//! The code lists EN 16931 checks values against (BR-CL-22, BR-CL-23, BR-CL-25), copied from the
//! CEN validation artefacts (Schematron 1.3.16) so that a value accepted here passes there.

fn listed(list: &str, code: &str) -> bool {
    !code.is_empty() && list.lines().any(|l| l == code)
}

/// UN/ECE Recommendations 20 and 21 unit codes (`C62`, `HUR`, `DAY`, `KGM`…).
pub fn is_unit_code(code: &str) -> bool {
    listed(include_str!("codes/units.txt"), code)
}

/// The CEF VATEX exemption reason codes (`VATEX-EU-AE`…), compared in upper case.
pub fn is_vatex_code(code: &str) -> bool {
    listed(include_str!("codes/vatex.txt"), &code.to_ascii_uppercase())
}

/// The CEF EAS electronic address schemes (`0088`, `0204`, `9930`, `EM`…), less `0219` and
/// `0220`: Factur-X 1.09's list, which the CII and the PDFs' embedded invoices are held to, does
/// not take them yet (FX-SCH-A-000571), and Peppol's does not either.
pub fn is_eas_scheme(code: &str) -> bool {
    listed(include_str!("codes/eas.txt"), code)
}

/// Every EAS scheme, for the API's schema.
pub fn eas_schemes() -> impl Iterator<Item = &'static str> {
    include_str!("codes/eas.txt").lines()
}
