// Invented sample runtime source.
int et_program_load() { return 0; }
