//! One line of the document form, as typed.

pub(crate) struct LineField {
    pub index: usize,
    pub product: String,
    pub description: String,
    pub quantity: String,
    pub unit_price: String,
    pub tax_rate: String,
    /// What e-invoices need (SPEC §23), kept through an edit.
    pub unit: String,
    pub tax_category: String,
    pub tax_exemption_reason: String,
}

impl LineField {
    /// The unit the line is counted in: one (`C62`) unless it says.
    pub fn unit_or_default(&self) -> &str {
        match self.unit.trim() {
            "" => invoicing_domain::einvoice::DEFAULT_UNIT,
            unit => unit,
        }
    }

    /// Whether the line says more than most do (a unit other than one, a VAT category other
    /// than the standard rate its rate implies, an exemption reason), so its "More" is shown
    /// open.
    pub fn has_more(&self) -> bool {
        self.unit_or_default() != invoicing_domain::einvoice::DEFAULT_UNIT
            || !matches!(self.tax_category.trim(), "" | "S")
            || !self.tax_exemption_reason.trim().is_empty()
    }
}

pub(super) fn blank_line(index: usize) -> LineField {
    LineField {
        index,
        product: String::new(),
        description: String::new(),
        quantity: "1".into(),
        unit_price: String::new(),
        tax_rate: String::new(),
        unit: String::new(),
        tax_category: String::new(),
        tax_exemption_reason: String::new(),
    }
}

pub(super) fn is_blank(l: &LineField) -> bool {
    l.product.trim().is_empty() && l.description.trim().is_empty() && l.unit_price.trim().is_empty()
}
