//! `a`'s child, which names its parent.
pub struct Part;

pub fn back() -> Part {
    super::part::Part
}
