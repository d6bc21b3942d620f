//! Two sibling modules in a cycle.
mod a;
mod b;
