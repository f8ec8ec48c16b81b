// Sample application entry point (the demo never edits C++ sources).
int main() { return 0; }
