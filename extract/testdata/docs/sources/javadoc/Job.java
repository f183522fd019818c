package org.example.spindle;

/**
 * One command to run, with its priority.
 */
public class Job {
    private final String command;

    /**
     * Creates a job.
     *
     * @param command the shell command the job runs
     */
    public Job(String command) { this.command = command; }

    /**
     * Returns the command.
     *
     * @return the shell command this job runs
     */
    public String command() { return command; }
}
