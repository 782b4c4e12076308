package python

import "strings"

// stdlibModules are the top-level modules of CPython's standard library
// (sys.stdlib_module_names of 3.13, plus those removed since 3.8). Many
// are built into the interpreter binary on some builds and are files on
// others (Debian links math, _socket … into python3.11), so a name here
// is taken as found once the interpreter's standard library is.
var stdlibModules = setOf(`__future__ _abc _aix_support _android_support _apple_support _ast _asyncio _bisect _blake2 _bootsubprocess _bz2
_codecs _codecs_cn _codecs_hk _codecs_iso2022 _codecs_jp _codecs_kr _codecs_tw _collections _collections_abc _colorize
_compat_pickle _compression _contextvars _crypt _csv _ctypes _curses _curses_panel _datetime _dbm _decimal _elementtree
_frozen_importlib _frozen_importlib_external _functools _gdbm _hashlib _heapq _imp _interpchannels _interpqueues
_interpreters _io _ios_support _json _locale _lsprof _lzma _markupbase _md5 _multibytecodec _multiprocessing _opcode
_opcode_metadata _operator _osx_support _overlapped _pickle _posixshmem _posixsubprocess _py_abc _pydatetime _pydecimal
_pyio _pylong _pyrepl _queue _random _scproxy _sha1 _sha2 _sha256 _sha3 _sha512 _signal _sitebuiltins _socket _sqlite3
_sre _ssl _stat _statistics _string _strptime _struct _suggestions _symtable _sysconfig _thread _threading_local _tkinter
_tokenize _tracemalloc _typing _uuid _warnings _weakref _weakrefset _winapi _wmi _zoneinfo abc aifc antigravity argparse
array ast asynchat asyncio asyncore atexit audioop base64 bdb binascii binhex bisect builtins bz2 cProfile calendar cgi
cgitb chunk cmath cmd code codecs codeop collections colorsys compileall concurrent configparser contextlib contextvars
copy copyreg crypt csv ctypes curses dataclasses datetime dbm decimal difflib dis distutils doctest email encodings
ensurepip enum errno faulthandler fcntl filecmp fileinput fnmatch formatter fractions ftplib functools gc genericpath
getopt getpass gettext glob graphlib grp gzip hashlib heapq hmac html http idlelib imaplib imghdr imp importlib inspect io
ipaddress itertools json keyword lib2to3 linecache locale logging lzma mailbox mailcap marshal math mimetypes mmap
modulefinder msilib msvcrt multiprocessing netrc nis nntplib nt ntpath nturl2path numbers opcode operator optparse os
ossaudiodev parser pathlib pdb pickle pickletools pipes pkgutil platform plistlib poplib posix posixpath pprint profile
pstats pty pwd py_compile pyclbr pydoc pydoc_data pyexpat queue quopri random re readline reprlib resource rlcompleter
runpy sched secrets select selectors shelve shlex shutil signal site smtpd smtplib sndhdr socket socketserver spwd
sqlite3 sre_compile sre_constants sre_parse ssl stat statistics string stringprep struct sunau symbol symtable sys
sysconfig syslog tabnanny tarfile telnetlib tempfile termios textwrap this threading time timeit tkinter token tokenize
tomllib trace traceback tracemalloc tty turtle turtledemo types typing unicodedata unittest urllib uu uuid venv warnings
wave weakref webbrowser winreg winsound wsgiref xdrlib xml xmlrpc xxlimited xxlimited_35 xxsubtype zipapp zipfile
zipimport zlib zoneinfo`)

func setOf(words string) map[string]bool {
	set := map[string]bool{}
	for _, word := range strings.Fields(words) {
		set[word] = true
	}
	return set
}

// distributions are the PyPI distributions that provide import names
// unlike their own, for the packages model servers import.
var distributions = map[string]string{
	"cv2": "opencv-python", "sklearn": "scikit-learn", "skimage": "scikit-image", "PIL": "pillow",
	"yaml": "pyyaml", "bs4": "beautifulsoup4", "dateutil": "python-dateutil", "dotenv": "python-dotenv",
	"jwt": "pyjwt", "jose": "python-jose", "Crypto": "pycryptodome", "OpenSSL": "pyopenssl", "magic": "python-magic",
	"multipart": "python-multipart", "attr": "attrs", "serial": "pyserial", "zmq": "pyzmq", "fitz": "pymupdf",
	"docx": "python-docx", "pptx": "python-pptx", "Levenshtein": "python-levenshtein", "faiss": "faiss-cpu",
	"huggingface_hub": "huggingface-hub", "pydantic_settings": "pydantic-settings", "google": "protobuf",
	"grpc": "grpcio", "grpc_health": "grpcio-health-checking", "grpc_status": "grpcio-status", "tritonclient": "tritonclient[all]",
	"onnxruntime": "onnxruntime (or onnxruntime-gpu)", "tensorflow": "tensorflow", "tf_keras": "tf-keras",
	"sentence_transformers": "sentence-transformers", "llama_cpp": "llama-cpp-python", "ray": "ray[serve]",
	"prometheus_client": "prometheus-client", "lightgbm": "lightgbm", "xgboost": "xgboost", "catboost": "catboost",
	"mlflow": "mlflow", "kserve": "kserve", "mlserver": "mlserver", "bentoml": "bentoml", "ts": "torchserve",
	"typing_extensions": "typing-extensions", "websockets": "websockets", "psycopg2": "psycopg2-binary",
	"MySQLdb": "mysqlclient", "dns": "dnspython", "git": "gitpython", "win32api": "pywin32", "ujson": "ujson",
	"orjson": "orjson", "starlette": "starlette", "accelerate": "accelerate", "flash_attn": "flash-attn",
	"vllm": "vllm", "sglang": "sglang[all]", "open_clip": "open-clip-torch", "timm": "timm", "detectron2": "detectron2",
	"pycocotools": "pycocotools", "absl": "absl-py", "tensorflow_hub": "tensorflow-hub", "tensorflow_text": "tensorflow-text",
}

// Distribution is the PyPI distribution most likely meant by a missing
// top-level import name.
func Distribution(name string) string {
	if dist, ok := distributions[name]; ok {
		return dist
	}
	return strings.ReplaceAll(name, "_", "-")
}
