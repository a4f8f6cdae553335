//! Jobs: the queue Agents take work from, its wake-ups across replicas, the
//! reconciliation that redeploys desired components, the Beacons that
//! deployments add to their profiles, and the progress running jobs report.

mod admission;
pub mod deployed_beacons;
pub mod progress;
pub mod queue;
pub mod reconcile;
pub mod wakeup;
