import CPushwireLinux

extension Syscall {
    /// Sets the calling thread's niceness (0 is the default, 19 the lowest priority). Raising it
    /// needs no privilege; lowering it below the current value needs CAP_SYS_NICE.
    public static func setThreadNiceness(_ niceness: Int32) throws(SystemError) {
        _ = try retrying("setpriority") { cpw_set_thread_niceness(niceness) }
    }

    /// Raises the calling thread's niceness by `step` from its current value (at most to 19):
    /// relative to the process, so that under `nice -n -10` the thread is at -5, not at 5
    /// behind every other process of the machine.
    public static func raiseThreadNiceness(by step: Int32) throws(SystemError) {
        _ = try retrying("setpriority") { cpw_raise_thread_niceness(step) }
    }
}
