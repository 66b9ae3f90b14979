/* version.h — the program's version: `ldagpu --version` and the library's ldagpu_version(). */
#ifndef LDA_VERSION_H
#define LDA_VERSION_H

#define LDAGPU_VERSION "0.2.0"

#endif
