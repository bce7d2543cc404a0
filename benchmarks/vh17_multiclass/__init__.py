"""[VH17]: multi-class EP on shared pseudo-inputs."""
