/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <linux/elf.h>: the UAPI header of the same name
 * (Elf64_Ehdr, Elf64_Shdr, SHT_*, SHF_*) and the names the kernel gives
 * the native ELF types on a 64-bit build (asm-generic/module.h, linux/elf.h).
 */
#ifndef FUZZ_SHIM_LINUX_ELF_H
#define FUZZ_SHIM_LINUX_ELF_H

#include_next <linux/elf.h>

#define Elf_Ehdr	Elf64_Ehdr
#define Elf_Shdr	Elf64_Shdr
#define Elf_Sym		Elf64_Sym
#define Elf_Addr	Elf64_Addr
#define elfhdr		elf64_hdr
#define elf_shdr	elf64_shdr

#endif
