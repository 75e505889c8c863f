"""Writing results: output paths checked before the work, files written atomically, interrupts."""
