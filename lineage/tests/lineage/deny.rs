//! The deny list as a lattice: adding an entry never allows more, whatever
//! was lifted before; families follow their names.

use jig_lineage::{DEFAULT_DENIED, DEFAULT_DENIED_INTERPRETERS, DenyList};
use proptest::prelude::*;

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(
            DEFAULT_DENIED
                .iter()
                .chain(DEFAULT_DENIED_INTERPRETERS)
                .copied()
                .collect::<Vec<_>>()
        )
        .prop_map(str::to_owned),
        "[a-z]{1,6}[0-9.\\-]{0,4}",
        "(python|perl|lua|ruby|node)[0-9]{0,2}(\\.[0-9]{1,2}){0,2}",
    ]
}

proptest! {
    #[test]
    fn adding_any_deny_entry_never_allows_more(
        lifted in proptest::collection::vec(name(), 0..4),
        added in proptest::collection::vec(name(), 1..4),
        probes in proptest::collection::vec(name(), 1..16),
    ) {
        let before = DenyList::default().dangerous_allow(&lifted);
        let after = before.clone().deny(added.iter().cloned());
        for probe in &probes {
            if before.is_denied(probe) {
                prop_assert!(after.is_denied(probe), "{probe} allowed after adding {added:?}");
            }
        }
        for name in &added {
            prop_assert!(after.is_denied(name), "{name} was added but is not denied");
        }
    }
}
