use pi_builtin_tools::truncate::*;

#[test]
fn head_line_limit_edges() {
    let at = "x\n".repeat(2000);
    assert!(!truncate_head(&at, 2000, 51200).truncated);
    let over = "x\n".repeat(2001);
    let t = truncate_head(&over, 2000, 51200);
    assert!(t.truncated);
    assert_eq!(t.truncated_by, Some(TruncatedBy::Lines));
    assert_eq!((t.output_lines, t.total_lines), (2000, 2001));
    let below = "x\n".repeat(1999);
    assert_eq!(truncate_head(&below, 2000, 51200).total_lines, 1999);
}

#[test]
fn head_byte_limit_edges() {
    let at = "y".repeat(51200);
    assert!(!truncate_head(&at, 2000, 51200).truncated);
    let over = format!("{}\n{}", "a".repeat(51100), "b".repeat(200));
    let t = truncate_head(&over, 2000, 51200);
    assert_eq!(t.truncated_by, Some(TruncatedBy::Bytes));
    assert_eq!(t.content, "a".repeat(51100));
    let first_too_long = "z".repeat(51201);
    let t = truncate_head(&first_too_long, 2000, 51200);
    assert!(t.first_line_exceeds_limit);
    assert_eq!(t.content, "");
}

#[test]
fn tail_keeps_last_lines_and_partial_last_line() {
    let text: String = (1..=2001).map(|i| format!("{i}\n")).collect();
    let t = truncate_tail(&text, 2000, 51200);
    assert_eq!(t.truncated_by, Some(TruncatedBy::Lines));
    assert!(t.content.starts_with("2\n"));
    assert!(t.content.ends_with("2001"));
    let long = format!("start\n{}", "é".repeat(30000));
    let t = truncate_tail(&long, 2000, 51200);
    assert!(t.last_line_partial);
    assert!(t.content.len() <= 51200);
    assert!(t.content.chars().all(|c| c == 'é'));
    assert_eq!(t.content.len(), 51200);
}

#[test]
fn lines_are_cut_at_500_chars() {
    let (kept, cut) = truncate_line(&"ü".repeat(500), GREP_MAX_LINE_LENGTH);
    assert!(!cut);
    assert_eq!(kept.chars().count(), 500);
    let (short, cut) = truncate_line(&"ü".repeat(501), GREP_MAX_LINE_LENGTH);
    assert!(cut);
    assert_eq!(short, format!("{}... [truncated]", "ü".repeat(500)));
}
