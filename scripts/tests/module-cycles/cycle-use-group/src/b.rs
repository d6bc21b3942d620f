//! Plain.
pub struct B;
