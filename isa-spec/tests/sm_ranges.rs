//! `sms` strings: ranges, open ends and comma lists, against a family's SMs.

use isa_spec::parse_sms;

const FAMILY: &[u32] = &[90, 100, 101, 103, 107, 110, 120, 121];

#[test]
fn ranges_pick_the_family_sms_inside() {
    assert_eq!(parse_sms("100..103", FAMILY), Ok(vec![100, 101, 103]));
    assert_eq!(parse_sms("110..", FAMILY), Ok(vec![110, 120, 121]));
    assert_eq!(parse_sms("..90", FAMILY), Ok(vec![90]));
    assert_eq!(parse_sms("107", FAMILY), Ok(vec![107]));
}

#[test]
fn a_list_is_the_union_of_its_ranges_in_order() {
    assert_eq!(parse_sms("100, 103", FAMILY), Ok(vec![100, 103]));
    assert_eq!(
        parse_sms("120.., 100..101", FAMILY),
        Ok(vec![100, 101, 120, 121])
    );
    assert_eq!(parse_sms("100..103, 101", FAMILY), Ok(vec![100, 101, 103]));
}

#[test]
fn bad_ranges_are_errors() {
    assert!(parse_sms("103..100", FAMILY).is_err());
    assert!(parse_sms("100,", FAMILY).is_err());
    assert!(parse_sms("sm100", FAMILY).is_err());
}
