use super::*;
use crate::decimal::TaxRate;
use proptest::prelude::*;

fn rate(s: &str) -> TaxRate {
    TaxRate::parse(s).unwrap()
}

fn balance(
    status: InvoiceStatus,
    total: i64,
    paid: i64,
    credited: i64,
) -> (InvoiceStatus, InvoiceBalance) {
    let b = InvoiceBalance::new(total, paid)
        .unwrap()
        .with_credited(credited)
        .unwrap();
    (status, b)
}

fn credit(
    (status, b): (InvoiceStatus, InvoiceBalance),
    amount: i64,
) -> Result<CreditEffect, CreditError> {
    apply_credit(status, b, amount)
}

fn due((status, b): (InvoiceStatus, InvoiceBalance)) -> i64 {
    amount_due(status, b)
}

#[test]
fn which_invoices_may_be_credited() {
    for status in InvoiceStatus::ALL {
        let r = credit(balance(status, 1000, 0, 0), 100);
        let allowed = matches!(
            status,
            InvoiceStatus::Sent
                | InvoiceStatus::Viewed
                | InvoiceStatus::Overdue
                | InvoiceStatus::Paid
        );
        assert_eq!(r.is_ok(), allowed, "{status:?}: {r:?}");
        if !allowed {
            assert_eq!(r, Err(CreditError::NotCreditable(status)));
        }
    }
}

#[test]
fn never_more_than_is_left_to_credit() {
    let b = balance(InvoiceStatus::Sent, 1000, 0, 600);
    assert_eq!(credit(b, 401), Err(CreditError::Exceeds { left: 400 }));
    assert!(credit(b, 400).is_ok());
    assert_eq!(credit(b, 0), Err(CreditError::NotPositive));
    assert_eq!(credit(b, -5), Err(CreditError::NotPositive));
}

#[test]
fn an_open_invoice_credited_to_zero_is_paid_or_cancelled() {
    // Part paid, the rest credited: paid, no refund.
    let e = credit(balance(InvoiceStatus::Sent, 1000, 300, 0), 700).unwrap();
    assert_eq!(e.new_status, Some(InvoiceStatus::Paid));
    assert_eq!(e.refund_due, 0);
    // Nothing paid, all credited: cancelled.
    let e = credit(balance(InvoiceStatus::Overdue, 1000, 0, 0), 1000).unwrap();
    assert_eq!(e.new_status, Some(InvoiceStatus::Cancelled));
    // A part: still open.
    let e = credit(balance(InvoiceStatus::Viewed, 1000, 0, 0), 400).unwrap();
    assert_eq!(e.new_status, None);
    // Part paid, credit more than is due: the excess is owed back, and it is paid.
    let e = credit(balance(InvoiceStatus::Sent, 1000, 600, 0), 1000).unwrap();
    assert_eq!(
        (e.refund_due, e.new_status),
        (600, Some(InvoiceStatus::Paid))
    );
    // Already paid: the whole credit is a refund; the status stays.
    let e = credit(balance(InvoiceStatus::Paid, 1000, 1000, 0), 250).unwrap();
    assert_eq!((e.refund_due, e.new_status), (250, None));
}

#[test]
fn amount_due_is_zero_once_paid_or_cancelled() {
    assert_eq!(due(balance(InvoiceStatus::Paid, 1000, 0, 0)), 0);
    assert_eq!(due(balance(InvoiceStatus::Cancelled, 1000, 0, 0)), 0);
    assert_eq!(due(balance(InvoiceStatus::Sent, 1000, 300, 200)), 500);
    assert_eq!(due(balance(InvoiceStatus::Sent, 1000, 900, 200)), 0);
}

#[test]
fn reasons_round_trip() {
    for r in CreditReason::ALL {
        assert_eq!(CreditReason::parse(r.as_str()), Some(r));
    }
    assert_eq!(CreditReason::parse("whim"), None);
}

#[test]
fn a_gross_amount_is_split_over_the_rates() {
    // 119.00 at 19 % and 107.00 at 7 %: 100.00 of 226.00 splits 52.65 / 47.35.
    let shares = [
        RateShare {
            rate: rate("19"),
            gross: 11900,
        },
        RateShare {
            rate: rate("7"),
            gross: 10700,
        },
    ];
    let lines = split_gross(10000, &shares);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines.iter().map(|l| l.total()).sum::<i64>(), 10000);
    assert_eq!(
        lines[0].total(),
        5266,
        "the remainder goes to the largest share"
    );
    assert_eq!(lines[1].total(), 4734);
    assert_eq!(lines[0].subtotal, 4425, "round(5266 × 100 / 119)");
    assert_eq!(lines[0].tax, 841);
    assert_eq!(lines[1].subtotal, 4424, "round(4734 × 100 / 107)");
    // One rate: one line; nothing to split over: none.
    let one = split_gross(
        119,
        &[RateShare {
            rate: rate("19"),
            gross: 11900,
        }],
    );
    assert_eq!(
        one,
        [SplitLine {
            share: 0,
            rate: rate("19"),
            subtotal: 100,
            tax: 19
        }]
    );
    assert!(split_gross(
        100,
        &[RateShare {
            rate: rate("0"),
            gross: 0
        }]
    )
    .is_empty());
}

proptest! {
    /// The lines add up to the amount exactly, each line's tax is its rate's on its subtotal to
    /// within rounding, and no line is larger than the amount.
    #[test]
    fn splits_add_up(
        amount in 1i64..1_000_000_000,
        shares in proptest::collection::vec((0i64..30_000, 1i64..1_000_000_000), 1..6),
    ) {
        let shares: Vec<RateShare> = shares
            .into_iter()
            .map(|(r, g)| RateShare { rate: TaxRate::from_thousandths(r).unwrap(), gross: g })
            .collect();
        let lines = split_gross(amount, &shares);
        prop_assert_eq!(lines.iter().map(|l| l.total()).sum::<i64>(), amount);
        for l in &lines {
            prop_assert!(l.total() > 0 && l.total() <= amount);
            let exact = i128::from(l.subtotal) * i128::from(l.rate.thousandths());
            let tax_at_rate = exact as f64 / 100_000.0;
            prop_assert!((l.tax as f64 - tax_at_rate).abs() <= 1.0 + tax_at_rate.abs() * 1e-9);
        }
    }

    /// However credits are cut, the credited total never exceeds the invoice total and the
    /// amount due never goes negative.
    #[test]
    fn credits_never_exceed_the_total(
        total in 1i64..1_000_000,
        paid_part in 0i64..=100,
        cuts in proptest::collection::vec(1i64..400_000, 1..12),
    ) {
        let paid = total * paid_part / 100;
        let (mut status, mut b) = balance(InvoiceStatus::Sent, total, paid, 0);
        for cut in cuts {
            match apply_credit(status, b, cut) {
                Ok(effect) => {
                    b = b.with_credited(b.credited().minor() + cut).unwrap();
                    if let Some(s) = effect.new_status {
                        status = s;
                    }
                    prop_assert!(effect.refund_due >= 0 && effect.refund_due <= cut);
                }
                Err(CreditError::Exceeds { left }) => prop_assert!(cut > left),
                Err(e) => prop_assert!(false, "{e}"),
            }
            prop_assert!(b.credited() <= b.total());
            prop_assert!(amount_due(status, b) >= 0);
        }
    }
}
