// Package python follows a container's start into the program an
// interpreter is told to run: the script or module python, uvicorn,
// gunicorn, hypercorn, fastapi, Ray Serve or TorchServe load (and node's
// script, java's jar), resolved on the interpreter's real import path in
// the image, and the imports the entry module runs unconditionally.
package python
