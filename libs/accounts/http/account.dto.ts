import { IsEmail, IsString, Length, Matches, MaxLength } from 'class-validator';
import { OptionalField } from '../../shared/http/validation';

export class RegisterDto {
  @IsString()
  @Matches(/^[a-z0-9_-]{3,32}$/, { message: 'username must be 3-32 characters of a-z, 0-9, _ and -' })
  username: string;

  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email: string;

  @IsString()
  @Length(10, 256, { message: 'password must be 10 to 256 characters' })
  password: string;
}

export class LoginDto {
  @IsString()
  @Length(1, 254)
  username: string;

  @IsString()
  @Length(1, 256)
  password: string;
}

export class ChangePasswordDto {
  @IsString()
  @Length(1, 256)
  current_password: string;

  @IsString()
  @Length(10, 256, { message: 'new_password must be 10 to 256 characters' })
  new_password: string;
}

/** `DELETE /account` (decision 0090): the current password, and `code` (TOTP) when 2FA is on. */
export class DeleteAccountDto {
  @IsString()
  @Length(1, 256)
  password: string;

  @OptionalField()
  @IsString()
  @Length(1, 32, { message: 'code must be the 6-digit code from your authenticator app' })
  code?: string;
}
