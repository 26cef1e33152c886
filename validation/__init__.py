"""asyncsim validation: H200 ground truth, scripts and checks."""
