//! Fixture without a cycle: `super::a` in `b`'s tests module is `b::a`, not the sibling `a`.
mod a;
mod b;
