//! Spindle schedules jobs across a pool of workers.
//!
//! # Example
//!
//! ```
//! let mut q = spindle::JobQueue::new(16);
//! q.offer("make test");
//! ```

/// The capacity used by [`JobQueue::default`]: 64 jobs.
pub const DEFAULT_CAPACITY: usize = 64;

/// A bounded queue of jobs waiting for a worker.
///
/// Jobs are taken in the order they were offered. The queue never holds
/// more than its capacity; [`JobQueue::offer`] refuses a job when it is full.
pub struct JobQueue {
    jobs: std::collections::VecDeque<String>,
    capacity: usize,
}

/// Why a job was not queued.
#[derive(Debug)]
pub enum OfferError {
    /// The queue already holds its capacity.
    Full,
    /// The command was empty.
    Empty,
}

impl JobQueue {
    /// Creates a queue that holds at most `capacity` jobs.
    ///
    /// # Panics
    ///
    /// Panics if `capacity` is zero.
    pub fn new(capacity: usize) -> Self {
        assert!(capacity > 0);
        JobQueue { jobs: Default::default(), capacity }
    }

    /// Adds a job at the tail of the queue.
    ///
    /// # Errors
    ///
    /// Returns [`OfferError::Full`] when the queue is full.
    pub fn offer(&mut self, cmd: &str) -> Result<(), OfferError> {
        if cmd.is_empty() { return Err(OfferError::Empty); }
        if self.jobs.len() >= self.capacity { return Err(OfferError::Full); }
        self.jobs.push_back(cmd.to_string());
        Ok(())
    }

    /// Removes and returns the job at the head of the queue, or `None`
    /// when the queue is empty.
    pub fn poll(&mut self) -> Option<String> { self.jobs.pop_front() }
}

impl Default for JobQueue {
    fn default() -> Self { Self::new(DEFAULT_CAPACITY) }
}
