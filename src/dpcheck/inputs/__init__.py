"""User input: the one number parser and the work ceilings every verb shares."""
