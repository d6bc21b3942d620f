//! Uses `c`.
pub struct B(pub crate::c::C);

pub fn make() -> B {
    B(super::c::C)
}
