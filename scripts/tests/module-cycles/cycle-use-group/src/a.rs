//! Uses `b` and `c` in one group.
use super::{b::B, c};

pub struct A(pub B, pub c::C);
