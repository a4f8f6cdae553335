//! Jobs: the queue Agents take work from, its wake-ups across replicas, the
//! reconciliation that redeploys desired components, and the Beacons that
//! deployments add to their profiles.

pub mod deployed_beacons;
pub mod queue;
pub mod reconcile;
pub mod wakeup;
