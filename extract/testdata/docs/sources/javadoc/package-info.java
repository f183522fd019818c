/**
 * Queues and runs jobs on a pool of workers.
 */
package org.example.spindle;
