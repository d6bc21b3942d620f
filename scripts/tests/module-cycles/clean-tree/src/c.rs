//! A leaf.
pub struct C;
